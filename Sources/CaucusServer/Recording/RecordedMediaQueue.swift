import CaucusSFU

/// What the forwarding engine handed over for recording, waiting to be written in a batch.
///
/// Why wait: a recorded packet touches its track's state (its recorder, its reassembly, its
/// clock mapping, the end of its cluster), and between two packets of one track the forwarding
/// of a few hundred others has pushed that state out of the processor's caches. Written one at
/// a time, most of recording's cost was those misses. Written a tenth of a second at a time, a
/// track's packets come together and its state is fetched once for several of them.
///
/// A batch is written when it holds ``limit`` items, or on the media loop's tick once its
/// first item has waited ``patience``, and always before anything else that writes (a new
/// picture, a timeline line, a stop), so the files and the timeline keep their order.
struct RecordedMediaQueue {
    /// Items (packets and sender reports) that make a batch full.
    static let limit = 2_048
    /// How long the first item of a batch waits at most, give or take a media tick.
    static let patience: Duration = .milliseconds(100)

    fileprivate struct Item {
        let media: ForwardingEngine.RecordedMedia
        let arrival: Duration
    }

    /// A batch taken to be written: its items, oldest first.
    struct Batch {
        fileprivate var items: [Item]

        /// Hands every item to `body`, in place: iterating the array copied each item out (a
        /// retain and a release of its packet, through the enum's generic copy).
        func forEach(_ body: (ForwardingEngine.RecordedMedia, Duration) -> Void) {
            items.withUnsafeBufferPointer { items in
                for index in items.indices { body(items[index].media, items[index].arrival) }
            }
        }
    }

    private var waiting: [Item] = []
    /// A written batch's buffer, emptied, for the next batch.
    private var spare: [Item] = []

    var isEmpty: Bool { waiting.isEmpty }

    /// Adds `media`, which arrived at `arrival`; true when the batch is full.
    mutating func append(_ media: ForwardingEngine.RecordedMedia, arrival: Duration) -> Bool {
        waiting.append(Item(media: media, arrival: arrival))
        return waiting.count >= Self.limit
    }

    /// Whether the batch's first item has waited ``patience`` at `now`.
    func isDue(at now: Duration) -> Bool {
        guard let first = waiting.first else { return false }
        return now - first.arrival >= Self.patience
    }

    /// Every waiting item, as a batch; the queue is empty after. Taken out rather than written
    /// from here: writing may stop the recording (a full disk), which writes what waits first.
    mutating func take() -> Batch? {
        guard !waiting.isEmpty else { return nil }
        var items: [Item] = []
        swap(&items, &spare)
        swap(&items, &waiting)
        return Batch(items: items)
    }

    /// Gives a written batch's buffer back for the next.
    mutating func recycle(_ batch: consuming Batch) {
        var items = batch.items
        items.removeAll(keepingCapacity: true)
        if items.capacity > spare.capacity { spare = items }
    }
}
