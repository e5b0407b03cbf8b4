import CaucusRecording
import CaucusSFU
import CaucusStore
import NIOConcurrencyHelpers

/// One session's recording as its media loop sees it: what the forwarding engine hands over is
/// batched here (``RecordedMediaQueue``) and written by the session's ``SessionRecorder`` on the
/// ``RecordingWriter``, with the session's pictures, speaker changes and stops in the order they
/// came, each after the media before it.
///
/// What the recorder asks back goes two ways: a location it stopped on its own (a full disk, the
/// quota) is reported to the session from the writer (``RecordingContext/report(_:_:)``); the
/// keyframes its recorders wait for wait in a box the loop empties with the session's periodic
/// work (``tick(now:)``), for the engine to ask the publishers. Confined to the media loop.
final class RecordingFeed {
    private var queue: RecordedMediaQueue
    private let pool = RecordedBatchPool()
    private let recorder: RecordingWriter.Confined<SessionRecorder>
    private let context: RecordingContext
    private let session: StoredSessionID
    /// Whether the last batch was dropped (one warning per stall).
    private var dropping = false
    /// Filled by the writer's jobs, emptied by the loop's tick.
    private let keyframesWanted = NIOLockedValueBox<[PublishedStream]>([])

    init(session: StoredSessionID, context: RecordingContext) {
        self.session = session
        self.context = context
        queue = RecordedMediaQueue(pool: pool)
        recorder = context.writer.confine(context.makeRecorder())
    }

    /// The session's latest picture. The engine hands over the media of everyone in a recorded
    /// location from now on; a location that cannot start (the quota) drops it on the writer
    /// until the session, told of the failure, stops recording it.
    func update(_ handover: RecordingHandover, engine: ForwardingEngine, now: Duration) {
        engine.record(handover.picture.recordedUsers)
        // What came before the picture is written under the picture it came in.
        ship()
        run { $0.update(handover, now: now) }
    }

    /// What the engine handed over for a recorded publisher, arrived at `now`.
    func receive(_ media: ForwardingEngine.RecordedMedia, now: Duration) {
        if queue.append(media, arrival: now) { ship() }
    }

    /// A location's new speaker order (a `spoke` line when its loudest changed), after the
    /// media that came before it (a file it may start).
    func speakers(_ order: [Int], in location: RecordingLocation, now: Duration) {
        ship()
        run { $0.speakers(order, in: location, now: now) }
    }

    /// The media loop's tick: a batch that has waited long enough goes to the writer. Returns
    /// the keyframes the recorders asked for since the last tick.
    func tick(now: Duration) -> [PublishedStream] {
        if queue.isDue(at: now) { ship() }
        return keyframesWanted.withLockedValue { wanted in
            defer { wanted.removeAll() }
            return wanted
        }
    }

    /// The session ended, or its media loop closes: every location's files end (on the writer:
    /// ``RecordingWriter/drain()`` waits for it).
    func stopAll(reason: String, now: Duration) {
        ship()
        run { $0.stopAll(reason: reason, now: now) }
    }

    /// Hands the waiting batch to the writer, unless the writer's backlog is full (a stalled
    /// disk): then the batch is dropped, a gap in the files (``RecordingWriter``).
    private func ship() {
        guard let batch = queue.take() else { return }
        let pool = pool
        let accepted = context.writer.run(
            media: batch.count, bytes: batch.bytes,
            job {
                $0.write(batch)
                pool.give(batch)
            })
        if !accepted { pool.give(batch) }
        if !accepted, !dropping {
            context.logger.warning(
                "Recording falls behind (the disk stalls): recorded media is dropped until the writer catches up.",
                metadata: ["session": "\(session)"])
        }
        dropping = !accepted
    }

    /// Runs `body` on the session's recorder on the writer.
    private func run(_ body: @escaping @Sendable (SessionRecorder) -> Void) {
        context.writer.run(job(body))
    }

    /// A writer's job: `body` on the session's recorder, then what the recorder asks taken.
    private func job(_ body: @escaping @Sendable (SessionRecorder) -> Void) -> @Sendable () -> Void {
        let (recorder, context, session, keyframesWanted) = (recorder, context, session, keyframesWanted)
        return {
            let recorder = recorder.inJob
            body(recorder)
            let wanted = recorder.takeKeyframesWanted()
            if !wanted.isEmpty { keyframesWanted.withLockedValue { $0 += wanted } }
            for failure in recorder.takeFailures() { context.report(session, failure) }
        }
    }
}
