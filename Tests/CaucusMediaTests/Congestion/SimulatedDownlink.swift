import CaucusMedia
import CaucusSFU

/// A subscriber's downlink as the estimator's tests see it: packets stamped by a
/// ``DownlinkEstimator`` go through a link with a fixed delay, an optional capacity (a queue
/// that drains at that rate) and optional loss, and the subscriber's transport-cc feedback
/// reports them on its own clock (offset by an arbitrary amount: only differences may matter).
struct SimulatedDownlink {
    var capacity: Int?
    var delay = Duration.milliseconds(20)
    /// Every `lossEvery`-th packet is lost.
    var lossEvery: Int?
    /// The subscriber's clock runs this far ahead of the server's.
    var clockOffset = Duration.seconds(1000)

    private var queueFreeAt = Duration.zero
    private var count = 0
    private var pending: [(sequenceNumber: UInt16, arrival: Duration?)] = []
    private var feedbackCount: UInt8 = 0

    init(capacity: Int? = nil, lossEvery: Int? = nil) {
        self.capacity = capacity
        self.lossEvery = lossEvery
    }

    mutating func send(_ sequenceNumber: UInt16, size: Int, at now: Duration) {
        count += 1
        if let lossEvery, count % lossEvery == 0 {
            pending.append((sequenceNumber, nil))
            return
        }
        var leaves = now
        if let capacity {
            leaves = max(now, queueFreeAt) + .microseconds(Int64(size) * 8_000_000 / Int64(capacity))
            queueFreeAt = leaves
        }
        pending.append((sequenceNumber, leaves + delay))
    }

    /// The feedback the subscriber sends at `now`: every packet that arrived by then, and the
    /// lost ones sent before them.
    mutating func feedback(at now: Duration) -> RTCPTransportFeedback? {
        guard let lastArrived = pending.lastIndex(where: { $0.arrival.map { $0 <= now } ?? false }) else { return nil }
        let reported = pending[...lastArrived]
        pending.removeFirst(lastArrived + 1)
        let arrivals = reported.compactMap { $0.arrival.map { $0 + clockOffset } }
        let first = arrivals.min()!
        let reference = DownlinkEstimator.microseconds(first) / 64_000
        var previous = reference * 64_000
        var deltas: [Int16?] = []
        for packet in reported {
            guard let arrival = packet.arrival.map({ DownlinkEstimator.microseconds($0 + clockOffset) }) else {
                deltas.append(nil)
                continue
            }
            deltas.append(Int16(clamping: (arrival - previous) / 250))
            previous += Int64((arrival - previous) / 250) * 250
        }
        feedbackCount &+= 1
        return RTCPTransportFeedback(
            senderSSRC: 9, mediaSSRC: 1, baseSequenceNumber: reported.first!.sequenceNumber, referenceTime: UInt32(reference),
            feedbackCount: feedbackCount, deltas: deltas)
    }

    /// The feedback as the engine reads it: encoded, found in its datagram and read there.
    static func readInPlace(_ feedback: RTCPTransportFeedback) -> RTCPTransportFeedbackView {
        let datagram = feedback.encoded()
        guard case .transportCC(let packet)? = try? RTCPCompound(datagram).first(where: { _ in true }),
            let view = RTCPTransportFeedbackView(feedbackControlInformation: packet.feedbackControlInformation)
        else { preconditionFailure("feedback this link made could not be read: \(datagram)") }
        return view
    }

    /// A probe's cluster: `bytes` in 500-byte packets, back to back at `now`.
    mutating func sendCluster(_ estimator: inout DownlinkEstimator, _ cluster: ProbeCluster, bytes: Int, at now: Duration) {
        for _ in 0..<max(2, bytes / 500) {
            send(estimator.stamp(size: 500, at: now, cluster: cluster), size: 500, at: now)
        }
    }

    /// Sends `estimator`'s link `size`-byte packets at `rate` bits per second from `start` for
    /// `duration`, feedback every 100 ms; returns when it ends.
    @discardableResult
    mutating func run(
        _ estimator: inout DownlinkEstimator, rate: Int, size: Int = 1000, from start: Duration, for duration: Duration
    ) -> Duration {
        let spacing = Duration.microseconds(Int64(size) * 8_000_000 / Int64(rate))
        var now = start
        var nextFeedback = start + .milliseconds(100)
        while now < start + duration {
            send(estimator.stamp(size: size, at: now), size: size, at: now)
            now += spacing
            while nextFeedback <= now {
                if let feedback = feedback(at: nextFeedback) { estimator.receive(Self.readInPlace(feedback), at: nextFeedback) }
                nextFeedback += .milliseconds(100)
            }
        }
        return now
    }
}
