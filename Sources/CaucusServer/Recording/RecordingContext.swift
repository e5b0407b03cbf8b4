import CaucusRecording
import CaucusStore
import Logging
import NIOConcurrencyHelpers

/// What every media loop's recording shares: where recordings go, the apps' quota, and where a
/// loop reports a location it stopped recording on its own (a full disk, the quota), so that
/// the session stops it for everyone and says why.
final class RecordingContext: Sendable {
    typealias Listener = @Sendable (_ session: StoredSessionID, _ failure: SessionRecorder.Failure) -> Void

    let layout: RecordingLayout
    let quota: RecordingQuota
    let logger: Logger
    private let listener = NIOLockedValueBox<Listener?>(nil)

    init(layout: RecordingLayout, quota: RecordingQuota, logger: Logger) {
        self.layout = layout
        self.quota = quota
        self.logger = logger
    }

    func makeRecorder() -> SessionRecorder {
        SessionRecorder(layout: layout, quota: quota, logger: logger)
    }

    /// From now on failures go to `listener` (the server's sessions, once they exist).
    func listen(_ listener: @escaping Listener) { self.listener.withLockedValue { $0 = listener } }

    func report(_ session: StoredSessionID, _ failure: SessionRecorder.Failure) {
        listener.withLockedValue { $0 }?(session, failure)
    }
}
