import Benchmark

/// What every Caucus benchmark measures, and its control. Each run of a benchmark's closure
/// handles a thousand packets (`scalingFactor`), so the figures read per packet.
public enum AllocationCounting {
    /// Sets the measures (allocations, CPU, wall clock, throughput) and registers the control:
    /// one allocation per iteration must count as one, or the zeros of the others say nothing
    /// (the counter needs the MallocInterposer trait, set in Package.swift).
    public static func configure() {
        Benchmark.defaultConfiguration = .init(
            metrics: [.mallocCountTotal, .cpuTotal, .wallClock, .throughput],
            scalingFactor: .kilo,
            maxDuration: .seconds(3),
            maxIterations: 1_000
        )
        Benchmark("control: one allocation per iteration") { benchmark in
            for index in benchmark.scaledIterations {
                blackHole([UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 64))
            }
        }
    }
}
