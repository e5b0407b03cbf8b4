/// Publishing media: each user says what it publishes; `mediaSources` says what is forwarded.
extension SessionState {
    /// Any present user may publish any kind wherever it is. Where its location forbids a kind
    /// (a room without video, a muted or paused main session), the router forwards nothing of
    /// it; the publication stands, so a move or an unmute needs nothing from the client.
    func decidePublish(_ kinds: MediaKinds, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard kinds != me.publishing else {
            throw CaucusError(.mediaUnchanged, "You already publish exactly that: \(Self.describe(kinds)).")
        }
        return [.mediaChanged(me.id, publishing: kinds)]
    }

    private static func describe(_ kinds: MediaKinds) -> String {
        kinds.isEmpty ? "nothing" : kinds.kinds.map(\.rawValue).joined(separator: ", ")
    }
}
