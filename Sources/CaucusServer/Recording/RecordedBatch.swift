import CaucusRecording
import CaucusSFU
import NIOConcurrencyHelpers

/// Batches between the media loop and the writer: the loop takes an empty one for its next
/// items, the writer gives each back once written (or the loop, one it dropped). At most
/// ``kept`` wait here; more are freed (a stalled writer's backlog is not kept twice).
final class RecordedBatchPool: Sendable {
    static let kept = 4
    private let batches = NIOLockedValueBox<[RecordedBatch]>([])

    func take() -> RecordedBatch {
        batches.withLockedValue { $0.popLast() } ?? RecordedBatch()
    }

    func give(_ batch: RecordedBatch) {
        batch.empty()
        batches.withLockedValue { batches in
            if batches.count < Self.kept { batches.append(batch) }
        }
    }
}

/// A batch of recorded media: each packet's bytes copied back to back into one buffer, and the
/// items in order (a packet's place in that buffer, or a sender report).
// Safe to send: a batch has one owner at a time, and is handed from one to the next through a
// lock or a queue that orders the two: the media loop's queue fills it, then gives it up
// (`RecordedMediaQueue.take()`) to the writer's job (handed over by `DispatchQueue.async`, which
// orders the loop's writes before the job's reads); the job gives it to the pool (under its
// lock), from which the loop takes it again (under the same lock). No two ever hold it at once.
final class RecordedBatch: @unchecked Sendable {
    /// One recorded item as the writer reads it.
    enum Media {
        /// A packet: its stream, its codec (nil: one the recorder does not write) and clock
        /// rate, its datagram (after SRTP).
        case rtp(stream: PublishedStream, codec: TrackRecorder.Codec?, clockRate: Int, datagram: ArraySlice<UInt8>)
        case senderReport(ForwardingEngine.RecordedSenderReport)
    }

    /// A packet's item holds plain values only (the codec by case, not by name): it is read out
    /// of the array with no reference to retain and release. (A sender report's holds arrays;
    /// there is one every few seconds per stream.)
    private enum Item {
        case rtp(stream: PublishedStream, codec: TrackRecorder.Codec?, clockRate: Int, bytes: Range<Int>, arrival: Duration)
        case senderReport(ForwardingEngine.RecordedSenderReport, arrival: Duration)
    }

    private var items: [Item] = []
    private var storage: [UInt8] = []

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    /// The packets' bytes (what the writer's backlog counts).
    var bytes: Int { storage.count }

    var firstArrival: Duration? {
        switch items.first {
        case .rtp(_, _, _, _, let arrival), .senderReport(_, let arrival): arrival
        case nil: nil
        }
    }

    /// Adds `media`; returns how many items the batch holds. A location's speaker order is
    /// not media to batch (``RecordingFeed/speakers(_:in:now:)``) and is not added.
    func append(_ media: ForwardingEngine.RecordedMedia, arrival: Duration) -> Int {
        // No capacity reserved up front: a batch grows to its session's traffic once, and keeps
        // that capacity while it goes round (``RecordedBatchPool``).
        switch media {
        case .rtp(let packet):
            let start = storage.count
            storage.append(contentsOf: packet.packet)
            items.append(.rtp(
                stream: packet.stream, codec: LocationRecording.codec(packet.codec), clockRate: packet.clockRate, bytes: start..<storage.count,
                arrival: arrival))
        case .senderReport(let report):
            // A report handed over again when recording started keeps the time it came.
            items.append(.senderReport(report, arrival: report.arrival ?? arrival))
        case .speakers:
            break
        }
        return items.count
    }

    /// Hands every item to `body`, oldest first, with when it arrived.
    func forEach(_ body: (Media, Duration) -> Void) {
        let storage = storage
        items.withUnsafeBufferPointer { items in
            for index in items.indices {
                switch items[index] {
                case .rtp(let stream, let codec, let clockRate, let bytes, let arrival):
                    body(.rtp(stream: stream, codec: codec, clockRate: clockRate, datagram: storage[bytes]), arrival)
                case .senderReport(let report, let arrival):
                    body(.senderReport(report), arrival)
                }
            }
        }
    }

    /// Forgets every item, keeping the buffers' memory for the next.
    fileprivate func empty() {
        items.removeAll(keepingCapacity: true)
        storage.removeAll(keepingCapacity: true)
    }
}
