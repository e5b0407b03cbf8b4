import CaucusMedia

/// How a publisher's packets are renumbered for one subscriber: the subscriber's payload type
/// for the same codec, and each header extension under the subscriber's ID for its URI. An
/// extension the subscriber did not negotiate is blanked to padding, and so is the MID
/// (RFC 8843 §15): it names the *publisher's* section, which in the subscriber's description
/// is some other transceiver; the subscriber finds the slot by the SSRC its answer announced.
/// So is the transport-wide sequence number: it numbers the publisher's transport, not the
/// subscriber's — unless the subscriber negotiated it too, in which case the element is kept
/// under the subscriber's ID and filled with the subscriber's own number for the packet
/// (``DownlinkEstimator``), or blanked when the caller has none to give.
///
/// Applied in place on the forwarded copy (no allocation): the payload type is 7 bits of the
/// second byte, and an element's ID is a nibble (one-byte form) or a byte (two-byte form) of
/// its own, so renumbering never moves a byte. Blanking writes zeros, which RFC 8285 §4.2 and
/// §4.3 define as padding between elements.
///
/// Redundant audio (RFC 2198) is the one case that touches the payload: a publisher's RED
/// packet goes on as RED (its blocks renumbered) to a subscriber that negotiated RED, and as
/// its primary encoding alone to one that did not (``RedundantAudio``).
public struct HeaderTranslation: Hashable, Sendable {
    public let payloadType: UInt8
    /// The publisher's RED payload type, and the subscriber's (nil: it gets the primary only).
    private let incomingRedundancy: UInt8?
    private let outgoingRedundancy: UInt8?
    private let incomingPayloadType: UInt8
    /// The subscriber's ID for each of the publisher's (the index); 0 blanks the element.
    private let extensionIDs: [UInt8]
    /// Nothing to change: the same payload type and the same ID for every element kept.
    public let isIdentity: Bool
    /// The publisher's ID of the transport-wide sequence number, when the subscriber negotiated
    /// it too: that element carries the subscriber's own number.
    private let incomingTransportSequenceID: UInt8?

    /// Whether copies can carry a transport-wide sequence number of the subscriber's.
    public var carriesTransportSequence: Bool { incomingTransportSequenceID != nil }

    /// Nil when the subscriber's format cannot carry the publisher's codec.
    public init?(from source: StreamFormat, to destination: StreamFormat) {
        guard source.carriesSameCodec(as: destination) else { return nil }
        payloadType = destination.codec.payloadType & 0x7F
        incomingPayloadType = source.codec.payloadType & 0x7F
        incomingRedundancy = source.redundancyPayloadType.map { $0 & 0x7F }
        outgoingRedundancy = destination.redundancyPayloadType.map { $0 & 0x7F }
        var ids = [UInt8](repeating: 0, count: 256)
        var identity = payloadType == incomingPayloadType
            && (incomingRedundancy == nil || incomingRedundancy == outgoingRedundancy)
        var transportSequenceID: UInt8?
        for (uri, id) in source.headerExtensionIDs {
            let outgoing = uri == RTPExtensionURI.mid ? nil : destination.headerExtensionIDs[uri]
            ids[Int(id)] = outgoing ?? 0
            if outgoing != id { identity = false }
            if uri == RTPExtensionURI.transportWideCC {
                // Always rewritten: blanked, or filled with the subscriber's number.
                identity = false
                if outgoing != nil { transportSequenceID = id }
            }
        }
        extensionIDs = ids
        isIdentity = identity
        incomingTransportSequenceID = transportSequenceID
    }

    /// The subscriber's ID for one of the publisher's extension IDs; nil when it is blanked.
    public func extensionID(for incoming: UInt8) -> UInt8? {
        let id = extensionIDs[Int(incoming)]
        return id == 0 ? nil : id
    }

    /// Rewrites `packet[..<length]`, an RTP packet, in place, and returns its length after
    /// (shorter when redundant audio was stripped); nil when the packet must not be sent (RED
    /// that is malformed or has no primary to hand a subscriber without RED). A malformed
    /// header is otherwise left as it is past the payload type (the forwarding path only
    /// forwards what SRTP authenticated, and a receiver drops what it cannot parse).
    /// `transportSequence` fills the transport-wide sequence number where the subscriber
    /// negotiated it (nil blanks it).
    public func apply(to packet: UnsafeMutableRawBufferPointer, length: Int, transportSequence: UInt16? = nil) -> Int? {
        guard !isIdentity, length >= 12, length <= packet.count else { return length }
        var length = length
        if let incomingRedundancy, packet[1] & 0x7F == incomingRedundancy {
            if let outgoingRedundancy {
                guard RedundantAudio.renumberBlocks(packet, length: length, from: incomingPayloadType, to: payloadType) else { return nil }
                packet[1] = packet[1] & 0x80 | outgoingRedundancy
            } else {
                guard let stripped = RedundantAudio.stripToPrimary(packet, length: length, primaryPayloadType: incomingPayloadType)
                else { return nil }
                length = stripped
                packet[1] = packet[1] & 0x80 | payloadType
            }
        } else {
            packet[1] = packet[1] & 0x80 | payloadType
        }
        renumberExtensions(packet, length: length, transportSequence: transportSequence)
        return length
    }

    private func renumberExtensions(_ packet: UnsafeMutableRawBufferPointer, length: Int, transportSequence: UInt16?) {
        guard packet[0] & 0x10 != 0 else { return }
        let header = 12 + Int(packet[0] & 0x0F) * 4
        guard header + 4 <= length else { return }
        let profile = UInt16(packet[header]) << 8 | UInt16(packet[header + 1])
        let words = Int(packet[header + 2]) << 8 | Int(packet[header + 3])
        let start = header + 4
        let end = min(start + words * 4, length)
        if profile == 0xBEDE {
            rewriteOneByteElements(packet, from: start, to: end, transportSequence: transportSequence)
        } else if profile & 0xFFF0 == 0x1000 {
            rewriteTwoByteElements(packet, from: start, to: end, transportSequence: transportSequence)
        }
    }

    /// Writes the subscriber's transport-wide number into the transport-wide element whose data
    /// starts at `data` and is `length` long; false when there is none to write or it does not fit.
    private func fillTransportSequence(_ packet: UnsafeMutableRawBufferPointer, data: Int, length: Int, transportSequence: UInt16?) -> Bool {
        guard let transportSequence, length == 2 else { return false }
        packet[data] = UInt8(transportSequence >> 8)
        packet[data + 1] = UInt8(transportSequence & 0xFF)
        return true
    }

    private func rewriteOneByteElements(
        _ packet: UnsafeMutableRawBufferPointer, from start: Int, to end: Int, transportSequence: UInt16?
    ) {
        var offset = start
        while offset < end {
            let byte = packet[offset]
            if byte == 0 {
                offset += 1
                continue
            }
            let id = byte >> 4
            // ID 15 ends the block (RFC 8285 §4.2).
            if id == 15 { return }
            let elementEnd = offset + 1 + Int(byte & 0x0F) + 1
            guard elementEnd <= end else { return }
            var outgoing = extensionIDs[Int(id)]
            if id == incomingTransportSequenceID,
                !fillTransportSequence(packet, data: offset + 1, length: elementEnd - offset - 1, transportSequence: transportSequence)
            {
                outgoing = 0
            }
            if outgoing == 0 || outgoing > 14 {
                for index in offset..<elementEnd { packet[index] = 0 }
            } else {
                packet[offset] = outgoing << 4 | byte & 0x0F
            }
            offset = elementEnd
        }
    }

    private func rewriteTwoByteElements(
        _ packet: UnsafeMutableRawBufferPointer, from start: Int, to end: Int, transportSequence: UInt16?
    ) {
        var offset = start
        while offset < end {
            let id = packet[offset]
            if id == 0 {
                offset += 1
                continue
            }
            guard offset + 2 <= end else { return }
            let elementEnd = offset + 2 + Int(packet[offset + 1])
            guard elementEnd <= end else { return }
            var outgoing = extensionIDs[Int(id)]
            if id == incomingTransportSequenceID,
                !fillTransportSequence(packet, data: offset + 2, length: elementEnd - offset - 2, transportSequence: transportSequence)
            {
                outgoing = 0
            }
            if outgoing == 0 {
                for index in offset..<elementEnd { packet[index] = 0 }
            } else {
                packet[offset] = outgoing
            }
            offset = elementEnd
        }
    }
}
