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

    /// Frames per second at `now`: the frames of the last `length` over that length; while
    /// less than a window has passed since the first frame, the frames after the first over
    /// the time since it (so a stream's first second reads its rate too, not less).
    func framesPerSecond(at now: Duration) -> Double {
        guard let first else { return 0 }
        let count = inWindow(at: now).count
        guard now - first < length else { return Double(count) / length.inSeconds }
        return count < 2 ? 0 : Double(count - 1) / (now - first).inSeconds
    }

    /// The level of the window's samples in dBFS (`AudioLevel.floor` when it holds none).
    func decibels(at now: Duration) -> Double {
        let arrivals = inWindow(at: now)
        let samples = arrivals.reduce(0) { $0 + $1.samples }
        guard samples > 0 else { return AudioLevel.floor }
        return AudioLevel.decibels(meanSquare: arrivals.reduce(0) { $0 + $1.sumOfSquares } / Double(samples))
    }

    /// Whether no frame arrived in the last `length` before `now`.
    func isEmpty(at now: Duration) -> Bool { inWindow(at: now).isEmpty }

    /// The arrivals in the window at `now`: (now - length, now].
    private func inWindow(at now: Duration) -> ArraySlice<Arrival> {
        let start = now - length
        return arrivals.drop { $0.time <= start }.prefix { $0.time <= now }
    }

    /// Drops the arrivals that can no longer be in a window: at or before `now - length`.
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
