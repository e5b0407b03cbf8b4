/// The machine's source of jitter: SplitMix64 from a seed the shell draws, so that a test
/// that gives the seed gets the same delays every run.
struct MachineRandom: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// Uniform in 0..<1.
    mutating func nextUnit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
