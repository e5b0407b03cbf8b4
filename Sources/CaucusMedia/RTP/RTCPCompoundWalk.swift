/// The packets of a compound RTCP datagram, header by header, read where they lie: each
/// one's type, count bits and body (padding stripped), checked as far as the common header
/// goes (version, length, padding). What each body holds is the reader's to check.
struct RTCPCompoundWalk {
    struct Header {
        var packetType: UInt8
        /// The header's five count bits (a report count, a feedback format, …).
        var count: UInt8
        /// Where the body lies in the datagram: after the four-byte header, before any padding.
        var body: Range<Int>
    }

    private let datagram: [UInt8]
    private var offset = 0

    init(_ datagram: [UInt8]) throws(RTPDecodingError) {
        guard datagram.count >= 4 else { throw .truncated }
        self.datagram = datagram
    }

    /// The next packet's header; nil after the last.
    mutating func next() throws(RTPDecodingError) -> Header? {
        guard offset < datagram.count else { return nil }
        guard datagram.count - offset >= 4 else { throw .truncated }
        let first = datagram[offset]
        guard first >> 6 == 2 else { throw .wrongVersion }
        let length = (Int(datagram.loadBigEndianUInt16(at: offset + 2)) + 1) * 4
        guard length <= datagram.count - offset else { throw .invalidLength }
        var bodyEnd = offset + length
        if first & 0x20 != 0 {
            let padding = Int(datagram[bodyEnd - 1])
            guard padding > 0, padding <= length - 4 else { throw .invalidPadding }
            bodyEnd -= padding
        }
        defer { offset += length }
        return Header(packetType: datagram[offset + 1], count: first & 0x1F, body: (offset + 4)..<bodyEnd)
    }
}
