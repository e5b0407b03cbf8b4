import NIOCore

/// What the rest of the server tells a connection's handler (user events), its limits, and
/// the close codes it sends a client that broke the protocol.
extension WebSocketConnectionHandler {
    /// Asks the handler to close with a close frame (or, for `.tooSlow`, to drop the socket).
    struct CloseRequest: Sendable {
        let code: CloseCode
        let reason: String
    }

    /// Tells the handler that a `join` or `resume` was refused (a wrong password, a full
    /// session): the connection has the join deadline again to try once more.
    struct JoinRefused: Sendable {}

    /// Tells the handler that a `join` or `resume` was taken: the connection no longer counts
    /// as waiting to join. Sent before the reply, on the same event loop, so the place is free
    /// by the time the client can read the reply and open another connection.
    struct JoinTaken: Sendable {}

    struct Limits {
        let maxMessageBytes: Int
        let keepAlive: TimeAmount
        /// How long a close frame waits for the client's before the socket is closed anyway.
        let closeTimeout: TimeAmount
        /// Messages read but not yet handled before the handler stops reading the socket.
        let maxQueuedMessages: Int
    }

    /// Close codes of RFC 6455 for a client that broke the protocol.
    enum ProtocolClose: UInt16 {
        case goingAway = 1001
        case protocolError = 1002
        case invalidPayload = 1007
        case messageTooLarge = 1009
    }
}
