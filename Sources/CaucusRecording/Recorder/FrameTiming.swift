/// Where one file's frames go on the file's timeline (milliseconds from its start). Pure.
///
/// The ``LocationClock`` says where each frame belongs on the location's clock, but its estimate
/// moves as sender reports come in: it is the best of the last 16, each stamped a few to tens of
/// milliseconds late, so it steps back when a better one arrives and forward when the best
/// leaves the window. Writing every frame at its mapped time would copy those steps into the
/// file: a 10 fps source written 100, 100, 28, 100 ms apart after a 72 ms step back. Players
/// do not mind, but tools that guess a frame rate from the spacing do: FFmpeg guessed 200 fps
/// for a 10 fps file with one 95 ms gap, and, retiming decoded frames onto a guessed 10 fps,
/// gave two frames one time after that step. Moving toward the clock still shortens some gaps,
/// so it is done only when the clock disagrees by more than its jitter, and gently. So:
/// - **The sender's spacing.** Within a file, frames are as far apart as their RTP timestamps
///   say, exactly (a 30 fps source at 33, 33, 34 ms), while the clock agrees with the file to
///   within ``deadband`` (10 ms).
/// - **Slewed, not stepped.** When the clock and the file disagree by more, the file's times
///   move toward the clock by at most 1/``slewDivisor`` of the stream time since the last
///   frame (≤ 6.25 ms per 100 ms frame, 1.25 ms per 20 ms audio packet) until they agree.
/// - **A jump is followed at once.** Past ``LocationClock/lateReportLimit`` the sender's clock
///   jumped (a paused source, a restarted encoder): the file steps to the clock. A jump back
///   (``jumpsBack(ofRTP:mapped:)``) cannot be followed in one file, whose times only increase:
///   the recorder ends the file there and starts the next at the clock's time.
/// - **Times strictly increase**: a frame is written at least 1 ms after the one before, so
///   no two frames of a file share a time (two of one RTP timestamp are 1 ms apart).
/// - **A file spans at most ``maximumTicks``** of its RTP clock (about 141 days of video): a
///   sender whose timestamps (and sender reports) run on by billions of ticks a frame would
///   otherwise take the arithmetic past 64 bits, and the server with it. Past it, frames
///   are written 1 ms apart.
struct FrameTiming: Sendable {
    /// How many RTP ticks from its first frame a file's times count: 2^40, so that every
    /// product here (ticks × 1,000,000) stays far inside 64 bits.
    static let maximumTicks: Int64 = 1 << 40

    /// How far the clock may be from the file's times before they are moved toward it: about
    /// the jitter of the clock's estimate (steps of 1 to 10 ms measured with aiortc), and a
    /// quarter of what two tracks may disagree by in sync (40 ms), so two tracks each left
    /// at it still agree, with room for what the clock cannot see (the network's delays).
    static let deadband: Int64 = 10_000
    /// The file's times move by at most this fraction of the stream time between two frames.
    static let slewDivisor: Int64 = 16

    /// The location-clock time (µs) of the file's 0: its first frame's mapped time.
    let origin: Int64
    private let clockRate: Int64
    private var lastRTP: UInt32
    /// RTP ticks from the first frame to the last, unwrapped (signed 32-bit steps).
    private var ticks: Int64 = 0
    /// What is added to the sender's spacing (µs): the moves toward the clock so far.
    private var correction: Int64 = 0
    /// A move toward the clock is under way: it goes on until the two agree (within 1 ms),
    /// not only until they are back within ``deadband``.
    private var converging = false
    /// The last frame's time (ms from the file's start); nil before the first.
    private(set) var lastMilliseconds: Int64?

    /// The timing of a file whose first frame has RTP timestamp `rtpTimestamp` and was mapped
    /// to `origin` (µs on the location's clock); that frame is at 0 ms.
    init(clockRate: Int, rtpTimestamp: UInt32, origin: Int64) {
        self.clockRate = Int64(max(clockRate, 1))
        self.lastRTP = rtpTimestamp
        self.origin = origin
    }

    /// Whether the clock places the next frame, with `rtpTimestamp`, more than
    /// ``LocationClock/lateReportLimit`` before where the file would put it: the sender's clock
    /// jumped back. Followed in this file, the frames after it would be written 1 ms apart
    /// until the clock caught up with the file again: seconds of media in milliseconds.
    func jumpsBack(ofRTP rtpTimestamp: UInt32, mapped: Int64) -> Bool {
        let spaced = Self.bounded(ticks + Int64(Int32(bitPattern: rtpTimestamp &- lastRTP))) * 1_000_000 / clockRate
        return mapped - (origin + spaced + correction) < -LocationClock.lateReportLimit
    }

    /// The time (ms from the file's start) of the next frame, in order, with RTP timestamp
    /// `rtpTimestamp`, which the clock maps to `mapped` (µs on the location's clock).
    mutating func milliseconds(ofRTP rtpTimestamp: UInt32, mapped: Int64) -> Int64 {
        let step = Int64(Int32(bitPattern: rtpTimestamp &- lastRTP))
        lastRTP = rtpTimestamp
        ticks = Self.bounded(ticks + step)
        let spaced = ticks * 1_000_000 / clockRate
        let error = mapped - (origin + spaced + correction)
        if abs(error) > LocationClock.lateReportLimit {
            correction += error
            converging = false
        } else if converging || abs(error) > Self.deadband {
            let limit = abs(step) * 1_000_000 / clockRate / Self.slewDivisor
            let move = min(max(error, -limit), limit)
            correction += move
            converging = abs(error - move) > 1_000
        }
        let time = (max(spaced + correction, 0) + 500) / 1_000
        let written = lastMilliseconds.map { max(time, $0 + 1) } ?? time
        lastMilliseconds = written
        return written
    }

    private static func bounded(_ ticks: Int64) -> Int64 {
        min(max(ticks, -maximumTicks), maximumTicks)
    }
}
