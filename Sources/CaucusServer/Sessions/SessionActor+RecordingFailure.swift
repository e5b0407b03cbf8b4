import CaucusCore

/// The media loop could not write a location's recording (a full disk, a quota): recording
/// stops there, as the server decides, and everyone is told why. The session goes on.
extension SessionActor {
    /// Stops recording `locations` for `reason`, as a command of the server, and delivers the
    /// `recordingChanged` like any other event. Locations not recorded now are ignored, so the
    /// writers of one location may each report it. Never throws: called from the media loop
    /// (`Task { await actor.recordingFailed(…) }`), which has nobody to tell; a session that
    /// ended or stops meanwhile records nothing anyway.
    func recordingFailed(_ locations: [Location], reason: RecordingStopReason) async {
        do {
            _ = try await perform(.recordingFailed(locations, reason), by: .server)
        } catch {
            environment.logger.warning(
                "session \(id) could not stop recording \(locations) after \(reason.rawValue): \(error.message)")
        }
    }
}
