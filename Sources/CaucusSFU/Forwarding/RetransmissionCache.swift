import CaucusMedia

/// A publisher stream's recent packets, as they arrived (decrypted, the publisher's own
/// numbers), so a subscriber's NACK is answered by the server instead of the publisher: the
/// repair crosses only the subscriber's lossy leg, and one loss upstream costs the publisher
/// one retransmission however many subscribers missed it.
///
/// Bounded: ``capacity`` packets per stream, in a ring indexed by sequence number, so a lookup
/// is one index and an old packet is overwritten by the one 512 numbers later (about 1.5 s of
/// 1.5 Mbit/s video; a NACK older than that comes too late to help a live picture anyway).
public struct RetransmissionCache: Sendable {
    public static let capacity = 512

    private var packets: [[UInt8]?]
    private var sequenceNumbers: [UInt16]

    public init() {
        packets = Array(repeating: nil, count: Self.capacity)
        sequenceNumbers = Array(repeating: 0, count: Self.capacity)
    }

    /// Keeps `packet`, whose sequence number is `sequenceNumber` (stored by reference: no copy).
    public mutating func insert(_ packet: [UInt8], sequenceNumber: UInt16) {
        let index = Int(sequenceNumber) % Self.capacity
        packets[index] = packet
        sequenceNumbers[index] = sequenceNumber
    }

    /// The packet with this sequence number, if it is still kept.
    public func packet(_ sequenceNumber: UInt16) -> [UInt8]? {
        let index = Int(sequenceNumber) % Self.capacity
        guard sequenceNumbers[index] == sequenceNumber else { return nil }
        return packets[index]
    }
}
