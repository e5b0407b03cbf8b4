/// A seeded generator, so that a property test's structured packets come from one seed that
/// swift-property-based chooses, records and replays.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: ClosedRange<Int>) -> [UInt8] {
        (0..<Int.random(in: count, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    mutating func words(_ count: ClosedRange<Int>) -> [UInt8] {
        bytes(0...0) + (0..<Int.random(in: count, using: &self)).flatMap { _ in bytes(4...4) }
    }
}
