import CaucusRecording
import CaucusStore
import Logging
import NIOConcurrencyHelpers

/// What every media loop's recording shares: where recordings go, the apps' quota, the writer
/// that writes them (off the loops), and where a recording reports a location it stopped on its
/// own (a full disk, the quota), so that the session stops it for everyone and says why.
final class RecordingContext: Sendable {
    typealias Listener = @Sendable (_ session: StoredSessionID, _ failure: SessionRecorder.Failure) -> Void

    let layout: RecordingLayout
    let quota: RecordingQuota
    let logger: Logger
    let writer: RecordingWriter
    private let listener = NIOLockedValueBox<Listener?>(nil)

    init(layout: RecordingLayout, quota: RecordingQuota, logger: Logger, writer: RecordingWriter = RecordingWriter()) {
        self.writer = writer
        self.layout = layout
        self.quota = quota
        self.logger = logger
    }

    /// A new session recorder, for a ``RecordingFeed`` to hand to the writer.
    func makeRecorder() -> SessionRecorder {
        SessionRecorder(layout: layout, quota: quota, logger: logger)
    }

    /// From now on failures go to `listener` (the server's sessions, once they exist).
    func listen(_ listener: @escaping Listener) { self.listener.withLockedValue { $0 = listener } }

    func report(_ session: StoredSessionID, _ failure: SessionRecorder.Failure) {
        listener.withLockedValue { $0 }?(session, failure)
    }
}
