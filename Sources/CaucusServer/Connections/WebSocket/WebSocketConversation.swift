import NIOCore

/// What a `WebSocketConnectionHandler` hands complete messages to, one at a time: the
/// server's `WebSocketSession`, or a recorder when the handler is tested on its own.
protocol WebSocketConversation: Sendable {
    func handle(_ inbound: WebSocketSession.Inbound, phase: WebSocketSession.Phase) async -> WebSocketSession.Phase
    /// The answer to a message read but never to be handled, because the session broke (its
    /// store failed, or it moved): the request did not take effect. Nil when there is none to give.
    func unhandled(_ inbound: WebSocketSession.Inbound) -> ByteBuffer?
}

extension WebSocketConversation {
    func unhandled(_ inbound: WebSocketSession.Inbound) -> ByteBuffer? { nil }
}

extension WebSocketSession: WebSocketConversation {}
