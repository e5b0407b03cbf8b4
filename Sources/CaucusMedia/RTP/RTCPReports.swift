/// RTCP sender report (RFC 3550 §6.4.1).
public struct RTCPSenderReport: Hashable, Sendable {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp: seconds since 1900 in the high half, the fraction in the low.
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]
    /// Profile-specific extension after the report blocks, kept as it came.
    public var profileExtension: [UInt8]

    public init(
        ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [RTCPReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtension = profileExtension
    }
}

/// RTCP receiver report (RFC 3550 §6.4.2).
public struct RTCPReceiverReport: Hashable, Sendable {
    public var ssrc: UInt32
    public var reports: [RTCPReportBlock]
    public var profileExtension: [UInt8]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtension = profileExtension
    }
}

/// One reception report block, shared by SR and RR.
public struct RTCPReportBlock: Hashable, Sendable {
    static let length = 24

    public var ssrc: UInt32
    public var fractionLost: UInt8
    /// A signed 24-bit count on the wire (it goes negative with duplicates).
    public var cumulativeLost: Int32
    public var highestSequenceNumber: UInt32
    public var jitter: UInt32
    public var lastSenderReport: UInt32
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, highestSequenceNumber: UInt32,
        jitter: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        // Clamped into what 24 signed bits hold.
        self.cumulativeLost = min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)
        self.highestSequenceNumber = highestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    init?(reading reader: inout BigEndianReader) {
        guard let ssrc = reader.readUInt32(), let fraction = reader.readUInt8(), let lost = reader.readUInt24(),
            let highest = reader.readUInt32(), let jitter = reader.readUInt32(), let lsr = reader.readUInt32(),
            let dlsr = reader.readUInt32()
        else { return nil }
        // Sign-extend the 24-bit field.
        let signed = Int32(bitPattern: lost << 8) >> 8
        self.init(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: signed, highestSequenceNumber: highest,
            jitter: jitter, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    func append(to bytes: inout [UInt8]) {
        bytes.appendBigEndian(ssrc)
        bytes.append(fractionLost)
        bytes.appendBigEndian24(UInt32(bitPattern: cumulativeLost) & 0xFF_FFFF)
        bytes.appendBigEndian(highestSequenceNumber)
        bytes.appendBigEndian(jitter)
        bytes.appendBigEndian(lastSenderReport)
        bytes.appendBigEndian(delaySinceLastSenderReport)
    }
}

/// RTCP BYE (RFC 3550 §6.6).
public struct RTCPGoodbye: Hashable, Sendable {
    public var ssrcs: [UInt32]
    /// The optional reason, as bytes (RFC 3550 says UTF-8 but does not promise it).
    public var reason: [UInt8]?

    public init(ssrcs: [UInt32], reason: [UInt8]? = nil) {
        self.ssrcs = Array(ssrcs.prefix(31))
        self.reason = reason.map { Array($0.prefix(255)) }
    }
}
