import CaucusMedia

/// A publisher stream's recent packets, as they arrived (decrypted, the publisher's own
/// numbers), so a subscriber's NACK is answered by the server instead of the publisher: the
/// repair crosses only the subscriber's lossy leg, and one loss upstream costs the publisher
/// one retransmission however many subscribers missed it.
///
/// Bounded: ``capacity`` packets per stream, in a ring indexed by sequence number, so a lookup
/// is one index and an old packet is overwritten by the one 512 numbers later (about 1.5 s of
/// 1.5 Mbit/s video; a NACK older than that comes too late to help a live picture anyway).
/// Each slot's storage is written again by the packets that follow.
public struct RetransmissionCache: Sendable {
    public static let capacity = 512

    private var packets: [[UInt8]?]
    private var sequenceNumbers: [UInt16]

    public init() {
        packets = Array(repeating: nil, count: Self.capacity)
        sequenceNumbers = Array(repeating: 0, count: Self.capacity)
    }

    /// Keeps a copy of `packet`, whose sequence number is `sequenceNumber`, in its slot's own
    /// storage, which the slot keeps from packet to packet: the caller's array stays the
    /// caller's (the media shell decrypts every datagram into one array, which a kept reference
    /// would make it give up: an allocation per packet), and copying a packet costs less than
    /// an allocation and its free. A slot's storage is written in place unless a repair being
    /// sent still holds it (copy-on-write tells), or the packet is larger than any the slot held
    /// before: a stream's packets are mostly of one size, so a slot rarely allocates again, and
    /// a small layer's slots stay small.
    public mutating func insert(_ packet: [UInt8], sequenceNumber: UInt16) {
        let index = Int(sequenceNumber) % Self.capacity
        sequenceNumbers[index] = sequenceNumber
        guard packets[index] != nil else {
            // A copy of its own, not the caller's storage.
            packets[index] = packet.withUnsafeBufferPointer { Array($0) }
            return
        }
        packets[index]!.removeAll(keepingCapacity: true)
        packets[index]!.append(contentsOf: packet)
    }

    /// The packet with this sequence number, if it is still kept.
    public func packet(_ sequenceNumber: UInt16) -> [UInt8]? {
        let index = Int(sequenceNumber) % Self.capacity
        guard sequenceNumbers[index] == sequenceNumber else { return nil }
        return packets[index]
    }
}
