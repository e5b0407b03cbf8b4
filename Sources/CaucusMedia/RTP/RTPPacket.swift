/// An RTP packet (RFC 3550 §5.1) with its CSRCs, header extension and padding.
public struct RTPPacket: Hashable, Sendable {
    static let fixedHeaderLength = 12

    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    public var headerExtension: RTPHeaderExtension?
    public var payload: [UInt8]
    /// Bytes of padding after the payload, the count byte included; 0 for none.
    public var paddingLength: UInt8

    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil, payload: [UInt8], paddingLength: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = Array(csrcs.prefix(15))
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingLength = paddingLength
    }

    public init(decoding datagram: [UInt8]) throws(RTPDecodingError) {
        var reader = BigEndianReader(datagram)
        guard let first = reader.readUInt8(), let second = reader.readUInt8(),
            let sequenceNumber = reader.readUInt16(), let timestamp = reader.readUInt32(),
            let ssrc = reader.readUInt32()
        else { throw .truncated }
        guard first >> 6 == 2 else { throw .wrongVersion }
        var csrcs: [UInt32] = []
        for _ in 0..<(first & 0x0F) {
            guard let csrc = reader.readUInt32() else { throw .truncated }
            csrcs.append(csrc)
        }
        var headerExtension: RTPHeaderExtension?
        if first & 0x10 != 0 {
            guard let profile = reader.readUInt16(), let words = reader.readUInt16(),
                let data = reader.readBytes(Int(words) * 4)
            else { throw .truncated }
            headerExtension = try RTPHeaderExtension(profile: profile, data: data)
        }
        var paddingLength: UInt8 = 0
        if first & 0x20 != 0 {
            guard let count = datagram.last, count > 0, Int(count) <= reader.remaining else { throw .invalidPadding }
            paddingLength = count
        }
        let payloadEnd = datagram.count - Int(paddingLength)
        self.init(
            marker: second & 0x80 != 0, payloadType: second & 0x7F, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: ssrc, csrcs: csrcs, headerExtension: headerExtension,
            payload: Array(datagram[reader.offset..<payloadEnd]), paddingLength: paddingLength)
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.fixedHeaderLength + csrcs.count * 4 + payload.count + 32)
        let padding: UInt8 = paddingLength > 0 ? 0x20 : 0
        let extensionBit: UInt8 = headerExtension != nil ? 0x10 : 0
        bytes.append(0x80 | padding | extensionBit | UInt8(min(csrcs.count, 15)))
        bytes.append((marker ? 0x80 : 0) | payloadType & 0x7F)
        bytes.appendBigEndian(sequenceNumber)
        bytes.appendBigEndian(timestamp)
        bytes.appendBigEndian(ssrc)
        for csrc in csrcs.prefix(15) { bytes.appendBigEndian(csrc) }
        if let headerExtension {
            let data = headerExtension.encodedData
            bytes.appendBigEndian(headerExtension.profile)
            bytes.appendBigEndian(UInt16(clamping: data.count / 4))
            bytes += data
        }
        bytes += payload
        if paddingLength > 0 {
            bytes += Array(repeating: 0, count: Int(paddingLength) - 1)
            bytes.append(paddingLength)
        }
        return bytes
    }
}
