/// Chat: scoped to the sender's room, or direct to one user.
extension SessionState {
    func decideChat(_ text: String, to target: ChatTarget, key: RequestKey?, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        // A repeat of a message already applied changes nothing, whatever changed since.
        if let key, try isRepeat(of: RememberedRequest(key: key, text: text, target: target), by: me.id) { return [] }
        try validateMessage(text)
        let scope: ChatScope
        switch target {
        case .room:
            if me.location == .main && parent.paused && role(of: me) == .participant {
                throw CaucusError(.parentPaused, "The main session is paused.")
            }
            scope = .room(me.location)
        case .user(let id):
            _ = try existingUser(id)
            scope = .direct(to: id)
        }
        return [
            .chatMessage(
                ChatMessage(id: MessageID(nextMessageNumber), from: me.id, scope: scope, text: text, sentAt: context.now, requestKey: key))
        ]
    }
}
