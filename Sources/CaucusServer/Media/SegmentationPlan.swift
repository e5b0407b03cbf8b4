/// How one flush's datagrams leave with UDP generic segmentation offload (`UDP_SEGMENT`, Linux
/// 4.18): a run of datagrams to one destination, all of one length but the last (which may be
/// shorter), goes to the kernel as one buffer that it cuts back into those datagrams. The send
/// path (system call, route lookup, socket buffer, device queue) is then paid once per run
/// instead of once per datagram; a video frame's packets to one subscriber are such a run.
///
/// Runs keep each stream's order: a datagram that cannot join its destination's open run
/// (longer than its segments, or the run is full) starts a new run, written after it, except
/// that a longer datagram of another stream leads an open run of one, the shorter one becoming
/// its last. Audio needs that: a subscriber's copies in one flush are one packet from each of a
/// few speakers, whose lengths differ (Opus), so in queued order only about half of them could
/// join. Datagrams of different streams to one destination, and of different destinations, may
/// so leave in another order than they were queued in: RTP orders each stream by its own
/// numbers, and the one number across a subscriber's streams, transport-cc's, is made for
/// reordering (the feedback names each number's arrival; `DownlinkEstimator` reads delays per
/// number). Runs are listed by their earliest queued datagram.
struct SegmentationPlan<Destination: Hashable> {
    /// Datagrams `first`, `next[first]`, … (as many as `count`), each `segment` bytes but the
    /// last.
    struct Run: Equatable {
        fileprivate(set) var first: Int
        fileprivate(set) var segment: Int
        fileprivate(set) var count = 1
        fileprivate(set) var bytes: Int
        fileprivate(set) var last: Int
        /// The stream of a run of one (nil: it has none, or the run has more).
        fileprivate var loneStream: UInt32?
    }

    /// The kernel's limit on segments per send (`UDP_MAX_SEGMENTS`: 64 until Linux 6.9).
    static var maximumSegments: Int { 64 }
    /// The largest datagram joined to others: a segment must fit the path's MTU or the send
    /// fails as a whole (`EINVAL`), where a lone larger datagram would be fragmented. 1,232
    /// bytes fit any IPv6 path (1,280 less the IPv6 and UDP headers), and RTP senders keep
    /// below about 1,200.
    static var maximumSegmentBytes: Int { 1_232 }
    /// What one send may carry (a UDP payload's limit, less room for the headers).
    static var maximumRunBytes: Int { 65_000 }

    private(set) var runs: [Run] = []
    /// For each datagram, the next one of its run (nil: the run's last).
    private var next: [Int?] = []
    private var open: [Destination: Int] = [:]

    /// Plans `datagrams` (destination, length and stream — an RTP SSRC, nil for datagrams that
    /// keep their place — in the order queued); `joinable` false keeps a datagram out of runs (it
    /// leaves alone, e.g. on an ICE-TCP connection).
    init(
        _ datagrams: some Sequence<(destination: Destination, length: Int, stream: UInt32?)>,
        joinable: (Destination) -> Bool = { _ in true }
    ) {
        // Sized at once: grown as it filled, the table of open runs was allocated and rehashed
        // several times a flush (about a fifth of the plan's samples in a profile:
        // docs/benchmarks.md).
        let count = datagrams.underestimatedCount
        runs.reserveCapacity(count)
        next.reserveCapacity(count)
        open.reserveCapacity(count)
        for (index, datagram) in datagrams.enumerated() {
            next.append(nil)
            let canJoin = datagram.length <= Self.maximumSegmentBytes && joinable(datagram.destination)
            if canJoin, let open = open[datagram.destination] {
                if join(index, length: datagram.length, to: open, of: datagram.destination) { continue }
                if lead(index, length: datagram.length, stream: datagram.stream, of: open, of: datagram.destination) { continue }
            }
            runs.append(Run(first: index, segment: datagram.length, bytes: datagram.length, last: index, loneStream: datagram.stream))
            open[datagram.destination] = canJoin ? runs.count - 1 : nil
        }
    }

    /// The datagrams of `run`, in order.
    func members(of run: Run) -> some Sequence<Int> {
        sequence(first: run.first) { next[$0] }
    }

    /// Adds datagram `index` to run `at` if the kernel can cut it out of the same send; a
    /// shorter datagram must be the run's last, so it closes the run, as does the last segment
    /// a send may carry.
    private mutating func join(_ index: Int, length: Int, to at: Int, of destination: Destination) -> Bool {
        let run = runs[at]
        guard length <= run.segment, run.count < Self.maximumSegments, run.bytes + length <= Self.maximumRunBytes else { return false }
        next[run.last] = index
        runs[at].last = index
        runs[at].count += 1
        runs[at].bytes += length
        runs[at].loneStream = nil
        if length < run.segment || runs[at].count == Self.maximumSegments { open[destination] = nil }
        return true
    }

    /// Puts datagram `index` ahead of run `at`'s one datagram when it is longer and of another
    /// stream (both with one): the two leave as one send, and the run closes (its last is shorter).
    private mutating func lead(_ index: Int, length: Int, stream: UInt32?, of at: Int, of destination: Destination) -> Bool {
        let run = runs[at]
        guard run.count == 1, let lone = run.loneStream, let stream, stream != lone, length > run.segment else { return false }
        next[index] = run.first
        runs[at] = Run(first: index, segment: length, count: 2, bytes: run.bytes + length, last: run.first)
        open[destination] = nil
        return true
    }
}
