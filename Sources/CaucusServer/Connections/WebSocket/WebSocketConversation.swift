/// What a `WebSocketConnectionHandler` hands complete messages to, one at a time: the
/// server's `WebSocketSession`, or a recorder when the handler is tested on its own.
protocol WebSocketConversation: Sendable {
    func handle(_ inbound: WebSocketSession.Inbound, phase: WebSocketSession.Phase) async -> WebSocketSession.Phase
}

extension WebSocketSession: WebSocketConversation {}
