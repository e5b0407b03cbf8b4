import CoreMetrics
import Dispatch
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Where recordings are written: one serial queue of its own, off the media loops.
///
/// Why not on the media loop that forwards the media: a write to a disk that stalls (a shared
/// path that hangs, a disk that is slow to flush) would hold every user of the loop's media
/// with it. Here it delays only the files: the loops hand batches over and go on.
///
/// Jobs run one at a time, in the order they were given (the media loops give a session's
/// batches, pictures and stops in the order they came).
///
/// A ceiling: the media waiting for the writer is counted in bytes, and a batch that would take
/// it past ``backlogLimit`` is dropped (counted in `caucus_recording_media_dropped_total`), so a
/// stalled disk costs a gap in the files, never the server's memory. Pictures and stops are
/// never dropped. Once the disk is back, writing goes on; video at its next keyframe.
///
/// What the writer costs is counted as it runs: each job's CPU time on its thread goes to
/// `caucus_recording_writer_cpu_seconds_total`, so recording's own share of the server's CPU
/// is read from the server (and `caucus bench media --record` reports it) rather than guessed
/// from the forwarding around it.
final class RecordingWriter: Sendable {
    /// Media bytes waiting at most: about 16 seconds of 50 recorded rooms of four publishers
    /// (docs/recording.md).
    static let standardBacklogLimit = 64 << 20

    let backlogLimit: Int
    private let queue = DispatchQueue(label: "caucus.recording-writer", qos: .utility)
    private let backlog = NIOLockedValueBox(Backlog())
    private let dropped = Counter(label: "caucus_recording_media_dropped_total")
    private let cpu = FloatingPointCounter(label: "caucus_recording_writer_cpu_seconds_total")

    private struct Backlog {
        var bytes = 0
        var droppedItems = 0
    }

    init(backlogLimit: Int = RecordingWriter.standardBacklogLimit) {
        self.backlogLimit = backlogLimit
    }

    /// Runs `job` on the writer, after every job given before it.
    func run(_ job: @escaping @Sendable () -> Void) {
        let cpu = cpu
        queue.async { Self.counting(cpu, job) }
    }

    /// Runs `job`, which writes `items` media items of `bytes` bytes, unless the media waiting
    /// would go past ``backlogLimit``; false when it was dropped.
    func run(media items: Int, bytes: Int, _ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = backlog.withLockedValue { backlog in
            guard backlog.bytes + bytes <= backlogLimit else {
                backlog.droppedItems += items
                return false
            }
            backlog.bytes += bytes
            return true
        }
        guard accepted else {
            dropped.increment(by: items)
            return false
        }
        let (backlog, cpu) = (backlog, cpu)
        queue.async {
            Self.counting(cpu, job)
            backlog.withLockedValue { $0.bytes -= bytes }
        }
        return true
    }

    /// Runs `job`, adding the CPU time it took on this thread to `cpu`. Two reads of the
    /// thread's clock a job, and a job writes a batch (up to a tenth of a second of a session's
    /// media), not a packet.
    private static func counting(_ cpu: FloatingPointCounter, _ job: () -> Void) {
        let before = threadCPUSeconds()
        job()
        if let before, let after = threadCPUSeconds(), after > before { cpu.increment(by: after - before) }
    }

    /// The calling thread's CPU time (user and system), in seconds; nil where it cannot be read.
    private static func threadCPUSeconds() -> Double? {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Media items dropped so far, the backlog being full.
    var droppedItems: Int { backlog.withLockedValue { $0.droppedItems } }

    /// Returns once every job given before it has run (a stop's last writes, before the
    /// process goes on to exit; tests, before they read the files).
    func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }

    /// The same, blocking the calling thread (never call it from the writer's own jobs).
    func drainBlocking() {
        queue.sync {}
    }

    /// Holds `value` for jobs on the writer only.
    func confine<Value>(_ value: Value) -> Confined<Value> {
        Confined(value, on: queue)
    }

    /// A value only the writer's jobs touch: a media loop holds it to hand it to them.
    // Safe to send: `value` is read only through `inJob`, which checks that it runs on the
    // writer's serial queue; that queue runs one job at a time, so no two threads ever touch
    // `value` at once, and each job sees what the one before it left (the queue orders them).
    final class Confined<Value>: @unchecked Sendable {
        private let value: Value
        private let queue: DispatchQueue

        fileprivate init(_ value: Value, on queue: DispatchQueue) {
            self.value = value
            self.queue = queue
        }

        /// The value, from a job on the writer.
        var inJob: Value {
            dispatchPrecondition(condition: .onQueue(queue))
            return value
        }
    }
}
