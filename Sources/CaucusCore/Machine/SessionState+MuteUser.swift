/// Muting another user: the host (anyone) or a manager (a participant) turns off part of what
/// that user publishes. It is the user's own publication that changes (`mediaChanged` with
/// `by`), so the router forwards none of it from that event on, every snapshot shows it off,
/// and the user turns it on again with `publish` as after muting itself. Nobody turns on
/// another user's microphone, camera or screen share: there is no command for it.
extension SessionState {
    func decideMuteUser(_ target: UserID, _ kinds: MediaKinds, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard target != me.id else {
            throw CaucusError(.muteSelf, "To mute yourself, publish without it; muteUser is for others.")
        }
        guard let user = users[target] else { throw .userNotFound(target) }
        if role(of: me) != .host && role(of: user) != .participant {
            throw CaucusError(.cannotMuteUser, "A manager mutes participants only: not the host, nor another manager.")
        }
        let muted = user.publishing.intersection(kinds)
        guard !muted.isEmpty else {
            throw CaucusError(.notPublishing, "\(user.name) publishes none of that: nothing to mute.")
        }
        return [.mediaChanged(target, publishing: user.publishing.subtracting(muted), by: me.id)]
    }
}
