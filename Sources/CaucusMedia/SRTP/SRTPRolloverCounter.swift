/// The 48-bit packet index of RFC 3711 §3.3.1: the 16-bit sequence number extended by a
/// rollover counter the sender never transmits, guessed by the receiver (Appendix A).
struct SRTPRolloverCounter: Sendable, Equatable {
    private(set) var rollover: UInt32
    private(set) var highestSequence: UInt16

    init(first sequence: UInt16) {
        rollover = 0
        highestSequence = sequence
    }

    /// The index `sequence` most likely belongs to: the one closest to the highest seen.
    func estimate(_ sequence: UInt16) -> UInt64 {
        var guess = Int64(rollover)
        if highestSequence < 0x8000 {
            if Int(sequence) - Int(highestSequence) > 0x8000 { guess -= 1 }
        } else if Int(highestSequence) - 0x8000 > Int(sequence) {
            guess += 1
        }
        // Before the first wrap there is no earlier rollover: such a packet is an old one
        // that only the replay window (or its tag) can judge.
        let rolloverGuess = UInt64(max(0, min(guess, Int64(UInt32.max))))
        return rolloverGuess << 16 | UInt64(sequence)
    }

    /// Records an index that passed authentication.
    mutating func accept(_ index: UInt64) {
        let current = UInt64(rollover) << 16 | UInt64(highestSequence)
        guard index > current else { return }
        rollover = UInt32(truncatingIfNeeded: index >> 16)
        highestSequence = UInt16(truncatingIfNeeded: index)
    }
}
