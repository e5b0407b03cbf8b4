import CaucusSFU

/// What the forwarding engine handed over for recording, waiting to be written in a batch.
///
/// Why wait: the writer is handed a tenth of a second of media at once, not each packet alone
/// (a batch of one cost recording about 5 points more in the benchmark; docs/benchmarks.md).
/// Taking a batch a publisher at a time, so that a track's packets come together, was tried
/// and saved the writer nothing: they are written in the order they came.
///
/// Why copy: a packet's bytes are copied into the batch's one buffer as they come, and the
/// packet itself dies on the media loop at once, as it does when nothing is recorded. Kept
/// whole until written, a tenth of a second of packets (about 1,300 buffers) stayed alive and
/// was freed on the writer's thread, and that alone cost the forwarding about 3 points of the
/// benchmark (docs/benchmarks.md); the likeliest cause is the loop's allocator handing out
/// fresh memory for each packet it received rather than the buffer just freed. The batches'
/// buffers go back and forth between the loop and the writer (``RecordedBatchPool``), so their
/// memory stays mapped.
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

    private let pool: RecordedBatchPool
    private var batch: RecordedBatch?

    init(pool: RecordedBatchPool = RecordedBatchPool()) {
        self.pool = pool
    }

    var isEmpty: Bool { batch?.isEmpty ?? true }

    /// Adds `media`, which arrived at `arrival`; true when the batch is full.
    mutating func append(_ media: ForwardingEngine.RecordedMedia, arrival: Duration) -> Bool {
        if batch == nil { batch = pool.take() }
        return batch!.append(media, arrival: arrival) >= Self.limit
    }

    /// Whether the batch's first item has waited ``patience`` at `now`.
    func isDue(at now: Duration) -> Bool {
        guard let first = batch?.firstArrival else { return false }
        return now - first >= Self.patience
    }

    /// Every waiting item, as a batch; the queue is empty after. The batch goes to the writer,
    /// which gives it back to the pool once written (``RecordedBatchPool/give(_:)``).
    mutating func take() -> RecordedBatch? {
        guard let taken = batch, !taken.isEmpty else { return nil }
        batch = nil
        return taken
    }
}
