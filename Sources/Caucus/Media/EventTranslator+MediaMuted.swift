import CaucusCore

extension EventTranslator {
    /// A user's publications changed: by the user itself, or (`by`) turned off by a host or
    /// manager, which is told as well with the kinds it turned off.
    func mediaChanged(_ id: UserID, by: UserID?) -> [SessionEvent] {
        guard let changed = someone(id) else { return [] }
        guard let by else { return [.mediaChanged(changed)] }
        let muted = (before.users[id]?.publishing ?? []).subtracting(after.users[id]?.publishing ?? [])
        return [.mediaChanged(changed), .mediaMuted(changed, kinds: muted, by: someone(by))]
    }

    private func someone(_ id: UserID) -> CaucusUser? { after.caucusUser(id) ?? before.caucusUser(id) ?? model.departed[id] }
}
