import CaucusCore

/// Chat. A message to the room reaches everyone in the sender's room (the main session or
/// its subsession) and no one elsewhere; a direct message reaches one user wherever they are.
/// Messages arrive as `SessionEvent.chatMessage`.
///
/// A send that throws `connectionLost` may still have taken effect: the connection went before
/// the server's answer came, and the message may have reached the room (the events replayed
/// after the resume show it). To send it again safely, give it a `requestKey` of your own (a
/// UUID's text fits: 1 to 64 ASCII letters, digits, `-`, `_`, `.` or `:`) and send it again with
/// the same key: the server applies it at most once, and answers the repeat as it answered the
/// first. The key given to another message is refused (`requestKeyReused`); a malformed key is
/// refused (`invalidArguments`) and sends nothing.
public struct Chat: Sendable {
    private let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    /// Sends to everyone in this user's room. Returns once the message is stored.
    public func send(_ text: String, requestKey: String? = nil) async throws(SessionError) {
        try await engine.perform(.text(.chat, text, requestKey: requestKey))
    }

    /// Sends to one user.
    public func send(_ text: String, to user: UserID, requestKey: String? = nil) async throws(SessionError) {
        try await engine.perform(.text(.chat, text, to: user, requestKey: requestKey))
    }
}
