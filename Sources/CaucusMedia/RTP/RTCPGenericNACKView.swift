/// A generic NACK (RFC 4585 §6.2.1) read where it lies in its datagram: its SSRCs, and the
/// sequence numbers it asks for, unpacked from its pairs one at a time.
public struct RTCPGenericNACKView {
    private let datagram: [UInt8]
    /// Where its pairs lie.
    private let pairs: Range<Int>
    public let senderSSRC: UInt32
    public let mediaSSRC: UInt32

    init(datagram: [UInt8], body: Range<Int>) {
        self.datagram = datagram
        senderSSRC = datagram.loadBigEndianUInt32(at: body.lowerBound)
        mediaSSRC = datagram.loadBigEndianUInt32(at: body.lowerBound + 4)
        pairs = (body.lowerBound + 8)..<body.upperBound
    }

    static func isGenericNACK(_ header: RTCPCompoundWalk.Header) -> Bool {
        header.packetType == RTCPFeedbackType.transport && header.count == 1
    }

    /// Both SSRCs, then whole pairs: what ``RTCPPacket/decodeCompound(_:)`` accepts.
    static func isWellFormed(_ body: Range<Int>) -> Bool {
        body.count >= 8 && (body.count - 8) % 4 == 0
    }

    /// Every sequence number it asks for, in order, wrapping past 65535 (as
    /// ``RTCPGenericNACK/lostSequenceNumbers``, without an array).
    public var lostSequenceNumbers: LostSequenceNumbers { LostSequenceNumbers(datagram: datagram, pairs: pairs) }

    /// The same NACK, decoded.
    public var decoded: RTCPGenericNACK {
        RTCPGenericNACK(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: stride(from: pairs.lowerBound, to: pairs.upperBound, by: 4).map {
            RTCPGenericNACK.Pair(packetID: datagram.loadBigEndianUInt16(at: $0), bitmask: datagram.loadBigEndianUInt16(at: $0 + 2))
        })
    }

    public struct LostSequenceNumbers: Sequence, IteratorProtocol {
        private let datagram: [UInt8]
        private var pairs: Range<Int>
        /// The pair being unpacked: its packet ID, and the numbers of it not yet given (bit 0
        /// for the ID itself, bit i + 1 for mask bit i).
        private var packetID: UInt16 = 0
        private var bits: UInt32 = 0

        init(datagram: [UInt8], pairs: Range<Int>) {
            self.datagram = datagram
            self.pairs = pairs
        }

        public mutating func next() -> UInt16? {
            if bits == 0 {
                guard pairs.count >= 4 else { return nil }
                packetID = datagram.loadBigEndianUInt16(at: pairs.lowerBound)
                bits = UInt32(datagram.loadBigEndianUInt16(at: pairs.lowerBound + 2)) << 1 | 1
                pairs = (pairs.lowerBound + 4)..<pairs.upperBound
            }
            // Bit 0 is the ID itself; bit i + 1 is mask bit i, the ID + i + 1.
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return packetID &+ UInt16(bit)
        }
    }
}
