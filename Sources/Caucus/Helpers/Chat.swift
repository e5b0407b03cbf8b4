import CaucusCore

/// Chat. A message to the room reaches everyone in the sender's room (the main session or
/// its subsession) and no one elsewhere; a direct message reaches one user wherever they are.
/// Messages arrive as `SessionEvent.chatMessage`.
public struct Chat: Sendable {
    private let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    /// Sends to everyone in this user's room. Returns once the message is stored.
    public func send(_ text: String) async throws(SessionError) {
        try await engine.perform(.text(.chat, text))
    }

    /// Sends to one user.
    public func send(_ text: String, to user: UserID) async throws(SessionError) {
        try await engine.perform(.text(.chat, text, to: user))
    }
}
