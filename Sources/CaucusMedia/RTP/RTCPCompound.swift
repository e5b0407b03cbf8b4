/// A compound RTCP datagram read in place: checked whole when made (as
/// ``RTCPPacket/decodeCompound(_:)``, any malformed packet fails it all), then read packet by
/// packet, in order. What a subscriber sends all the time is read where it lies instead of
/// decoded into arrays: a generic NACK, for every loss it sees (``RTCPGenericNACKView``:
/// answering one allocates nothing), and its transport-cc feedback (``RTCPTransportCCView``).
/// Every other packet is decoded as ``RTCPPacket``.
public struct RTCPCompound: Sequence {
    public enum Packet {
        case genericNACK(RTCPGenericNACKView)
        case transportCC(RTCPTransportCCView)
        case decoded(RTCPPacket)
    }

    private let datagram: [UInt8]
    /// Every packet but those read in place, decoded in order when the datagram was checked.
    private let decoded: [RTCPPacket]

    public init(_ datagram: [UInt8]) throws(RTPDecodingError) {
        // Empty, and so unallocated, when every packet is read in place.
        var decoded: [RTCPPacket] = []
        var walk = try RTCPCompoundWalk(datagram)
        while let header = try walk.next() {
            if RTCPGenericNACKView.isGenericNACK(header) {
                guard RTCPGenericNACKView.isWellFormed(header.body) else { throw .malformedRTCP(packetType: header.packetType) }
            } else if RTCPTransportCCView.isTransportCC(header) {
                guard RTCPTransportCCView.isWellFormed(header.body) else { throw .malformedRTCP(packetType: header.packetType) }
            } else {
                decoded.append(try RTCPPacket.decode(packetType: header.packetType, count: header.count, body: Array(datagram[header.body])))
            }
        }
        self.datagram = datagram
        self.decoded = decoded
    }

    public func makeIterator() -> Iterator { Iterator(datagram: datagram, decoded: decoded) }

    public struct Iterator: IteratorProtocol {
        private let datagram: [UInt8]
        private let decoded: [RTCPPacket]
        private var walk: RTCPCompoundWalk?
        private var nextDecoded = 0

        init(datagram: [UInt8], decoded: [RTCPPacket]) {
            self.datagram = datagram
            self.decoded = decoded
            self.walk = try? RTCPCompoundWalk(datagram)
        }

        public mutating func next() -> Packet? {
            // The datagram was checked whole: the walk cannot fail now.
            guard let header = try? walk?.next() else { return nil }
            if RTCPGenericNACKView.isGenericNACK(header) {
                return .genericNACK(RTCPGenericNACKView(datagram: datagram, body: header.body))
            }
            if RTCPTransportCCView.isTransportCC(header) {
                return .transportCC(RTCPTransportCCView(datagram: datagram, body: header.body))
            }
            defer { nextDecoded += 1 }
            return .decoded(decoded[nextDecoded])
        }
    }
}
