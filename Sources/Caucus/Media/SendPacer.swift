/// Spreads what this user's video sends over time: a token bucket that lets a burst of
/// `burstBytes` go at once and the rest at `bytesPerSecond`, in order. A keyframe of many
/// packets then leaves as a stream rather than one burst that a router's queue drops. Audio
/// and RTCP do not pass through it (audio never waits for video). Pure: fed the time.
struct SendPacer {
    /// 8 Mbit/s: well above what one camera and one screen share send, so the pacer smooths
    /// bursts without holding the stream back; a burst of about 16 full packets goes at once.
    static let standard = SendPacer(bytesPerSecond: 1_000_000, burstBytes: 20_000)

    let bytesPerSecond: Int
    let burstBytes: Int
    /// Bytes that may go now: at most `burstBytes`.
    private var tokens: Double
    private var refilled: Duration?
    private var queue: [[UInt8]] = []
    private var head = 0

    init(bytesPerSecond: Int, burstBytes: Int) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.burstBytes = max(1, burstBytes)
        tokens = Double(self.burstBytes)
    }

    /// How many datagrams wait.
    var queued: Int { queue.count - head }

    /// Takes datagrams to send; returns those that may go now, in order (the rest wait for
    /// ``release(now:)`` at ``nextRelease``).
    mutating func send(_ datagrams: [[UInt8]], now: Duration) -> [[UInt8]] {
        queue += datagrams
        return release(now: now)
    }

    /// What may go now, in order.
    mutating func release(now: Duration) -> [[UInt8]] {
        refill(now: now)
        var out: [[UInt8]] = []
        while head < queue.count, canSend(queue[head].count) {
            tokens = max(0, tokens - Double(queue[head].count))
            out.append(queue[head])
            head += 1
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256 {
            queue.removeFirst(head)
            head = 0
        }
        return out
    }

    /// When the next waiting datagram may go; nil when none waits.
    var nextRelease: Duration? {
        guard queued > 0, let refilled else { return nil }
        // A datagram larger than the burst goes once the bucket is full.
        let needed = min(Double(queue[head].count), Double(burstBytes))
        let wait = max(0, needed - tokens) / Double(bytesPerSecond)
        return refilled + .nanoseconds(Int64((wait * 1e9).rounded(.up)))
    }

    private func canSend(_ size: Int) -> Bool {
        tokens >= Double(min(size, burstBytes)) - 1e-6
    }

    private mutating func refill(now: Duration) {
        if let refilled, now > refilled {
            let (seconds, attoseconds) = (now - refilled).components
            let elapsed = Double(seconds) + Double(attoseconds) / 1e18
            tokens = min(Double(burstBytes), tokens + elapsed * Double(bytesPerSecond))
        }
        if refilled.map({ now > $0 }) ?? true { refilled = now }
    }
}
