/// The sliding replay window of RFC 3711 §3.3.2: remembers which of the last 128 indices
/// were accepted. `check` before authenticating, `accept` only after, so a forged packet
/// cannot move the window.
struct SRTPReplayWindow: Sendable {
    static let size: UInt64 = 128

    private(set) var highest: UInt64
    /// Bit `i` set: index `highest - i` was accepted.
    private var seen: UInt128

    init(first index: UInt64) {
        highest = index
        seen = 1
    }

    func check(_ index: UInt64) -> SRTPError? {
        if index > highest { return nil }
        let age = highest - index
        if age >= Self.size { return .tooOld }
        return (seen >> UInt128(age)) & 1 == 1 ? .replayed : nil
    }

    mutating func accept(_ index: UInt64) {
        if index > highest {
            let shift = index - highest
            seen = shift >= Self.size ? 1 : (seen << UInt128(shift)) | 1
            highest = index
        } else {
            seen |= 1 << UInt128(highest - index)
        }
    }
}
