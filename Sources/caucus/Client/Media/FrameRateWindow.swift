/// The frames of one stream in the last `length` (a second, by default): how many arrived,
/// hence the frame rate, and for audio the level of their samples. Pure: each arrival comes
/// with its time (any origin, the same for all), and so does each reading.
struct FrameRateWindow: Sendable {
    private struct Arrival: Sendable {
        let time: Duration
        let sumOfSquares: Double
        let samples: Int
    }

    let length: Duration
    private var arrivals: [Arrival] = []
    /// When the first frame arrived: before a whole window has passed since, the rate is
    /// taken over the time since then.
    private var first: Duration?

    init(length: Duration = .seconds(1)) {
        precondition(length > .zero, "a window has a length")
        self.length = length
    }

    /// A frame arrived at `time`; for audio, with its decoded samples' squares summed.
    mutating func add(at time: Duration, sumOfSquares: Double = 0, samples: Int = 0) {
        if first == nil { first = time }
        arrivals.append(Arrival(time: time, sumOfSquares: sumOfSquares, samples: samples))
        forget(before: time)
    }

    /// Frames per second at `now`: the frames of the last `length` over that length (or over
    /// the time since the first frame, while that is shorter, but never less than a tenth of
    /// the window, so one early frame does not read as a huge rate).
    mutating func framesPerSecond(at now: Duration) -> Double {
        forget(before: now)
        guard let first else { return 0 }
        let span = max(length / 10, min(length, now - first))
        return Double(arrivals.count) / span.inSeconds
    }

    /// The level of the window's samples in dBFS (`AudioLevel.floor` when it holds none).
    mutating func decibels(at now: Duration) -> Double {
        forget(before: now)
        let samples = arrivals.reduce(0) { $0 + $1.samples }
        guard samples > 0 else { return AudioLevel.floor }
        return AudioLevel.decibels(meanSquare: arrivals.reduce(0) { $0 + $1.sumOfSquares } / Double(samples))
    }

    /// Whether any frame arrived in the last `length` before `now`.
    mutating func isEmpty(at now: Duration) -> Bool {
        forget(before: now)
        return arrivals.isEmpty
    }

    /// Drops the arrivals at or before `now - length`: the window is (now - length, now].
    private mutating func forget(before now: Duration) {
        let start = now - length
        if let kept = arrivals.firstIndex(where: { $0.time > start }) {
            arrivals.removeFirst(kept)
        } else {
            arrivals.removeAll()
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
