/// RTCP feedback messages (RFC 4585 §6, RFC 5104 §4.3.1) the SFU reads or sends.
public enum RTCPFeedbackType {
    /// Transport-layer feedback: generic NACK (format 1), transport-cc (format 15).
    public static let transport: UInt8 = 205
    /// Payload-specific feedback: PLI (1), FIR (4), REMB (15).
    public static let payloadSpecific: UInt8 = 206
    /// The RTPFB format of transport-wide congestion control feedback
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
    public static let transportCCFormat: UInt8 = 15
}

/// Full intra request: each entry asks one media sender for a keyframe.
public struct RTCPFullIntraRequest: Hashable, Sendable {
    public var senderSSRC: UInt32
    public var entries: [Entry]

    public struct Entry: Hashable, Sendable {
        public var ssrc: UInt32
        /// Incremented by the requester for each new request, so repeats are recognised.
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }
}

/// Generic NACK: lost packets as (packet ID, bitmask of the 16 following) pairs.
public struct RTCPGenericNACK: Hashable, Sendable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var pairs: [Pair]

    public struct Pair: Hashable, Sendable {
        public var packetID: UInt16
        /// Bit i set: packet ID + i + 1 is lost too.
        public var bitmask: UInt16

        public init(packetID: UInt16, bitmask: UInt16) {
            self.packetID = packetID
            self.bitmask = bitmask
        }
    }

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Packs lost sequence numbers, in the order given, into as few pairs as that order allows.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16]) {
        var pairs: [Pair] = []
        for sequenceNumber in lost {
            if var last = pairs.last {
                let distance = sequenceNumber &- last.packetID
                if (1...16).contains(distance) {
                    last.bitmask |= 1 << (distance - 1)
                    pairs[pairs.count - 1] = last
                    continue
                }
                if distance == 0 { continue }
            }
            pairs.append(Pair(packetID: sequenceNumber, bitmask: 0))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: pairs)
    }

    /// Every sequence number the NACK asks for, in order, wrapping past 65535.
    public var lostSequenceNumbers: [UInt16] {
        pairs.flatMap { pair in
            [pair.packetID] + (0..<16).compactMap { bit in
                pair.bitmask & (1 << bit) != 0 ? pair.packetID &+ UInt16(bit) &+ 1 : nil
            }
        }
    }
}

/// A feedback message kept opaque (REMB, transport-cc, anything newer): forwarded or dropped.
public struct RTCPOpaqueFeedback: Hashable, Sendable {
    /// 205 (transport) or 206 (payload-specific).
    public var packetType: UInt8
    public var format: UInt8
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var feedbackControlInformation: [UInt8]

    public init(packetType: UInt8, format: UInt8, senderSSRC: UInt32, mediaSSRC: UInt32, feedbackControlInformation: [UInt8]) {
        self.packetType = packetType
        self.format = format & 0x1F
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.feedbackControlInformation = feedbackControlInformation
    }

    /// True for a REMB (draft-alvestrand-rmcat-remb): PSFB format 15 whose FCI starts "REMB".
    public var isREMB: Bool {
        packetType == RTCPFeedbackType.payloadSpecific && format == 15
            && feedbackControlInformation.starts(with: Array("REMB".utf8))
    }

    /// True for transport-wide congestion control feedback (RTPFB format 15).
    public var isTransportCC: Bool { packetType == RTCPFeedbackType.transport && format == RTCPFeedbackType.transportCCFormat }
}
