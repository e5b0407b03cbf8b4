/// The sliding replay window of RFC 3711 §3.3.2: remembers which of the last 128 indices
/// were accepted. `check` before authenticating, `accept` only after, so a forged packet
/// cannot move the window.
///
/// The 128 bits are two words rather than a `UInt128`, which needs macOS 15 / iOS 18: the
/// SDK, which runs from macOS 13 / iOS 16, uses this module too.
struct SRTPReplayWindow: Sendable {
    static let size: UInt64 = 128

    private(set) var highest: UInt64
    /// Bit `i` of `recent` (i < 64) or bit `i - 64` of `older`: index `highest - i` was accepted.
    private var recent: UInt64
    private var older: UInt64

    init(first index: UInt64) {
        highest = index
        recent = 1
        older = 0
    }

    func check(_ index: UInt64) -> SRTPError? {
        if index > highest { return nil }
        let age = highest - index
        if age >= Self.size { return .tooOld }
        let word = age < 64 ? recent : older
        return (word >> (age % 64)) & 1 == 1 ? .replayed : nil
    }

    mutating func accept(_ index: UInt64) {
        if index > highest {
            shift(by: index - highest)
            recent |= 1
            highest = index
        } else {
            let age = highest - index
            if age < 64 {
                recent |= 1 << age
            } else if age < Self.size {
                older |= 1 << (age - 64)
            }
        }
    }

    /// Ages every bit by `count` indices; bits older than the window fall off.
    private mutating func shift(by count: UInt64) {
        if count >= Self.size {
            (recent, older) = (0, 0)
        } else if count >= 64 {
            (recent, older) = (0, recent << (count - 64))
        } else {
            older = older << count | recent >> (64 - count)
            recent <<= count
        }
    }
}
