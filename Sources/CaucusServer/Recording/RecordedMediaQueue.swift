import CaucusSFU

/// What the forwarding engine handed over for recording, waiting to be written in a batch.
///
/// Why wait: a recorded packet touches its track's state (its recorder, its reassembly, its
/// clock mapping, the end of its cluster), and between two packets of one track the forwarding
/// of a few hundred others has pushed that state out of the processor's caches. Written one at
/// a time, most of recording's cost was those misses. Written a tenth of a second at a time, a
/// track's packets come together and its state is fetched once for several of them.
///
/// A batch goes to the writer (``RecordingFeed``) when it holds ``limit`` items, or on the
/// media loop's tick once its first item has waited ``patience``, and always before anything
/// else the writer is given (a new picture, a timeline line, a stop), so the files and the
/// timeline keep their order. The writer is on another thread: one hand-over per batch.
struct RecordedMediaQueue {
    /// Items (packets and sender reports) that make a batch full.
    static let limit = 2_048
    /// How long the first item of a batch waits at most, give or take a media tick.
    static let patience: Duration = .milliseconds(100)

    fileprivate struct Item: Sendable {
        let media: ForwardingEngine.RecordedMedia
        let arrival: Duration
    }

    /// A batch taken to be written: its items, oldest first.
    struct Batch: Sendable {
        fileprivate var items: [Item]
        /// The packets' bytes (what the writer's backlog counts).
        let bytes: Int

        var count: Int { items.count }

        /// Hands every item to `body`, in place: iterating the array copied each item out (a
        /// retain and a release of its packet, through the enum's generic copy).
        func forEach(_ body: (ForwardingEngine.RecordedMedia, Duration) -> Void) {
            items.withUnsafeBufferPointer { items in
                for index in items.indices { body(items[index].media, items[index].arrival) }
            }
        }
    }

    private var waiting: [Item] = []
    private var waitingBytes = 0
    /// How many items the last batch held: the next one's storage is made about that size at
    /// once, not grown (and copied) a dozen times on the way.
    private var lastBatchSize = 64

    var isEmpty: Bool { waiting.isEmpty }

    /// Adds `media`, which arrived at `arrival`; true when the batch is full.
    mutating func append(_ media: ForwardingEngine.RecordedMedia, arrival: Duration) -> Bool {
        if waiting.capacity == 0 { waiting.reserveCapacity(min(Self.limit, lastBatchSize + lastBatchSize / 4 + 16)) }
        waiting.append(Item(media: media, arrival: arrival))
        if case .rtp(let packet) = media { waitingBytes += packet.packet.count }
        return waiting.count >= Self.limit
    }

    /// Whether the batch's first item has waited ``patience`` at `now`.
    func isDue(at now: Duration) -> Bool {
        guard let first = waiting.first else { return false }
        return now - first.arrival >= Self.patience
    }

    /// Every waiting item, as a batch; the queue is empty after. The batch goes to the writer,
    /// and its storage with it (freed there once written).
    mutating func take() -> Batch? {
        guard !waiting.isEmpty else { return nil }
        lastBatchSize = waiting.count
        var items: [Item] = []
        swap(&items, &waiting)
        defer { waitingBytes = 0 }
        return Batch(items: items, bytes: waitingBytes)
    }
}
