import CaucusCore
import CaucusStore
import Logging

/// What a live session needs from the server around it.
struct SessionEnvironment: Sendable {
    let store: any SessionStore
    let clock: ServerClock
    let secrets: ResumeSecrets
    let metrics: ServerMetrics
    let logger: Logger
    /// How many recent events a session keeps in memory to replay to resuming clients; a
    /// client that missed more gets a fresh snapshot.
    let replayWindow: Int
    /// Events between two snapshots of a session's state (0: never; see `SessionPipeline+Snapshots`).
    let snapshotInterval: Int
    /// How long roster news may wait to be sent with the next (zero: never held).
    let rosterWindow: Duration
    /// The media port, whose peers go when their users leave.
    let media: MediaTransport
    /// The TURN servers each user's join and resume replies name, with fresh credentials.
    let turn: TURNConfiguration?
    /// Told when a session has ended (or broken), so its name is free again.
    let sessionClosed: @Sendable (StoredSessionID) async -> Void
}
