import CaucusCore

/// Starting and stopping recording: the host's, and managers' when the session's
/// `managersMayRecord` setting allows. Everyone in a recorded location is told
/// (``SessionEvent/recordingChanged(locations:recordingMe:)``).
extension SubsessionManager {
    /// Records these locations: `.main` and/or subsessions, each not recorded yet.
    public func startRecording(_ locations: [CaucusLocation]) async throws(SessionError) {
        try await engine.perform(.recording(.startRecording, locations))
    }

    /// Records every subsession, those created later included (from their start).
    public func startRecordingEverySubsession() async throws(SessionError) {
        try await engine.perform(.recording(.startRecording, nil))
    }

    /// Stops recording these locations. Stopping one subsession while every subsession is
    /// recorded goes on recording the others, but not those created later.
    public func stopRecording(_ locations: [CaucusLocation]) async throws(SessionError) {
        try await engine.perform(.recording(.stopRecording, locations))
    }

    /// Stops all recording: every subsession and the main session.
    public func stopAllRecording() async throws(SessionError) {
        try await engine.perform(.recording(.stopRecording, nil))
    }
}
