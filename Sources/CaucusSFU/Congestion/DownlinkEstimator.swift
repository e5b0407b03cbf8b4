import CaucusMedia

/// One subscriber's downlink bandwidth, estimated from its transport-wide congestion control
/// feedback on what the server sent it (sans-IO: packets sent, feedback and time in; an
/// estimate out).
///
/// Every packet the server sends the subscriber that can carry a transport-wide sequence number
/// is stamped with the next one (``stamp(size:at:)``); the subscriber reports which arrived and
/// when (``receive(_:at:)``). From that:
/// - **queueing delay**: each arrival's one-way delay (its arrival on the subscriber's clock
///   minus its sending on ours) above the smallest seen in ``Configuration/baseWindow`` — the
///   clocks' offset cancels out; a standing queue on a link too slow for what it is sent shows
///   as a delay that grows;
/// - **loss**: the share of stamped packets the feedback names as missing, over the last
///   ``Configuration/rateWindow``;
/// - **delivered rate**: the bytes that arrived, over the last ``Configuration/rateWindow`` of
///   arrivals (on the subscriber's clock: a queue delivers at the link's rate, whatever it
///   was sent).
///
/// The link is **overused** when the average queueing delay of a feedback exceeds
/// ``Configuration/queueDelayLimit`` or the loss exceeds ``Configuration/lossLimit``: the
/// estimate then drops to ``Configuration/decrease`` of the delivered rate (at most once per
/// ``Configuration/decreaseInterval``). Otherwise the estimate is at least the delivered rate:
/// what the link carried without a queue, it can carry. The estimate rises above what is sent
/// only by probes (``ProbeSchedule``): clusters of packets whose arrival rate shows what the
/// link carries (``ProbeCluster``, ``raise(to:)``); their packets count for nothing else (their
/// own queue is no congestion, their loss no sign of it).
public struct DownlinkEstimator: Sendable {
    public struct Configuration: Sendable {
        public var queueDelayLimit: Duration = .milliseconds(60)
        public var lossLimit = 0.1
        public var decrease = 0.85
        public var decreaseInterval: Duration = .milliseconds(500)
        public var rateWindow: Duration = .milliseconds(500)
        public var baseWindow: Duration = .seconds(10)
        /// Never estimated below this (bits per second): audio must always fit.
        public var minimum = 64_000

        public static let standard = Configuration()

        public init() {}
    }

    /// The estimate in bits per second; 0 until the first feedback.
    public private(set) var estimate = 0
    /// When the link was last found overused.
    public private(set) var lastOveruse: Duration?
    /// The rate the last feedback showed delivered, in bits per second.
    public private(set) var deliveredRate = 0

    private let configuration: Configuration
    private var nextSequenceNumber: UInt16 = 1
    /// What was sent, by transport-wide sequence number (a ring, like the retransmission cache).
    private var sent: [Sent?]
    /// Feedback results within the rate window, by sending time (for the loss), and the
    /// arrivals within it, on the subscriber's clock in microseconds (for the delivered rate).
    private var results: [(sentAt: Duration, size: Int, arrived: Bool)] = []
    private var arrivals: [(at: Int64, size: Int)] = []
    /// The smallest one-way delay of each second of sending, for the base delay.
    private var delayMinima: [(second: Int64, delay: Int64)] = []
    private var lastDecrease: Duration?
    /// Probe clusters being reported, and the outcomes of the last few.
    private var clusters: [Int: ProbeClusterMeasurement] = [:]
    private var outcomes: [Int: ProbeOutcome] = [:]

    private struct Sent {
        let sequenceNumber: UInt16
        let at: Duration
        let size: Int
        let cluster: Int?
        var reported: Bool
    }

    /// Packets remembered for their feedback: a few seconds of a busy subscriber's downlink
    /// (feedback comes every 50–100 ms), about 40 kB per subscriber.
    static let history = 1024

    public init(configuration: Configuration = .standard) {
        self.configuration = configuration
        sent = Array(repeating: nil, count: Self.history)
    }

    /// The transport-wide sequence number for a packet of `size` bytes sent at `now`, part of a
    /// probe's `cluster` if it is one.
    public mutating func stamp(size: Int, at now: Duration, cluster: ProbeCluster? = nil) -> UInt16 {
        let sequenceNumber = nextSequenceNumber
        nextSequenceNumber &+= 1
        if let cluster {
            if clusters[cluster.id] == nil {
                // A cluster whose packets were never all reported is given up with the next.
                clusters = clusters.filter { $0.key > cluster.id - 8 }
                clusters[cluster.id] = ProbeClusterMeasurement(cluster: cluster)
            }
            clusters[cluster.id]!.sent += 1
        }
        sent[Int(sequenceNumber) % Self.history] = Sent(
            sequenceNumber: sequenceNumber, at: now, size: size, cluster: cluster?.id, reported: false)
        return sequenceNumber
    }

    /// What probe `id` found, once its packets are all reported.
    public func outcome(ofProbe id: Int) -> ProbeOutcome? {
        outcomes[id]
    }

    /// The subscriber's feedback, received at `now`.
    public mutating func receive(_ feedback: RTCPTransportFeedback, at now: Duration) {
        receive(base: feedback.baseSequenceNumber, referenceTime: feedback.referenceTime, deltas: feedback.deltas, at: now)
    }

    /// The subscriber's feedback, read where it lies in its datagram, received at `now`.
    public mutating func receive(_ feedback: RTCPTransportFeedbackView, at now: Duration) {
        receive(base: feedback.baseSequenceNumber, referenceTime: feedback.referenceTime, deltas: feedback, at: now)
    }

    /// Feedback on the sequence numbers from `base`: one delta each (nil when not received).
    private mutating func receive(base: UInt16, referenceTime: UInt32, deltas: some Sequence<Int16?>, at now: Duration) {
        var remoteArrival = Int64(referenceTime) * 64_000
        // The queueing delays' sum and count, for their average: no array per report.
        var queueDelaySum: Int64 = 0
        var queueDelayCount: Int64 = 0
        for (index, delta) in deltas.enumerated() {
            // Every received number's delta counts towards the next arrival, known packet or not.
            if let delta { remoteArrival += Int64(delta) * 250 }
            let arrival = delta == nil ? nil : remoteArrival
            let sequenceNumber = base &+ UInt16(truncatingIfNeeded: index)
            let slot = Int(sequenceNumber) % Self.history
            guard var packet = sent[slot], packet.sequenceNumber == sequenceNumber, !packet.reported else { continue }
            packet.reported = true
            sent[slot] = packet
            if let cluster = packet.cluster {
                measure(cluster, arrival: arrival, size: packet.size)
                continue
            }
            results.append((packet.at, packet.size, arrival != nil))
            guard let arrival else { continue }
            let sentMicroseconds = Self.microseconds(packet.at)
            let delay = arrival - sentMicroseconds
            queueDelaySum += delay - noteDelay(delay, sentAt: sentMicroseconds)
            queueDelayCount += 1
            arrivals.append((arrival, packet.size))
        }
        // Pruned below by the arrival times the subscriber reports, which it writes: times that
        // never advance would keep every arrival. No more are kept than packets remembered.
        if arrivals.count > Self.history { arrivals.removeFirst(arrivals.count - Self.history) }
        // Read lazily, here and below: a report allocates nothing once the windows have grown.
        guard let latest = results.lazy.map(\.sentAt).max() else { return }
        let window = Self.microseconds(configuration.rateWindow)
        results.removeAll { latest - $0.sentAt > configuration.rateWindow }
        if let lastArrival = arrivals.lazy.map(\.at).max() {
            arrivals.removeAll { lastArrival - $0.at > window }
            deliveredRate = Int(Int64(arrivals.lazy.map(\.size).reduce(0, +)) * 8_000_000 / window)
        }
        let lost = results.lazy.filter { !$0.arrived }.count
        let loss = results.isEmpty ? 0 : Double(lost) / Double(results.count)
        let averageQueueDelay = queueDelayCount == 0 ? 0 : queueDelaySum / queueDelayCount
        let overused = averageQueueDelay > Self.microseconds(configuration.queueDelayLimit) || loss > configuration.lossLimit
        if overused {
            lastOveruse = now
            if lastDecrease.map({ now - $0 >= configuration.decreaseInterval }) ?? true {
                lastDecrease = now
                estimate = max(configuration.minimum, Int(Double(deliveredRate) * configuration.decrease))
            }
        } else if deliveredRate > estimate {
            estimate = deliveredRate
        }
    }

    private mutating func measure(_ id: Int, arrival: Int64?, size: Int) {
        guard var measurement = clusters[id] else { return }
        measurement.reported += 1
        if let arrival { measurement.arrivals.append((arrival, size)) } else { measurement.lost += 1 }
        guard let outcome = measurement.outcome else {
            clusters[id] = measurement
            return
        }
        clusters[id] = nil
        outcomes[id] = outcome
        outcomes = outcomes.filter { $0.key > id - 8 }
    }

    /// Raises the estimate to what probes showed the link carries (``ProbeSchedule``).
    public mutating func raise(to rate: Int) {
        estimate = max(estimate, rate)
    }

    /// Whether the link has shown no overuse for `quiet`.
    public func isCalm(for quiet: Duration, at now: Duration) -> Bool {
        estimate > 0 && lastOveruse.map { now - $0 >= quiet } ?? true
    }

    /// Records a one-way delay and returns the base delay: the smallest of the last
    /// ``Configuration/baseWindow``.
    private mutating func noteDelay(_ delay: Int64, sentAt: Int64) -> Int64 {
        let second = sentAt / 1_000_000
        if let last = delayMinima.last, last.second == second {
            delayMinima[delayMinima.count - 1].delay = min(last.delay, delay)
        } else {
            delayMinima.append((second, delay))
        }
        let oldest = second - Int64(configuration.baseWindow.components.seconds)
        delayMinima.removeAll { $0.second < oldest }
        return delayMinima.lazy.map(\.delay).min() ?? delay
    }

    /// A duration in whole microseconds.
    public static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}
