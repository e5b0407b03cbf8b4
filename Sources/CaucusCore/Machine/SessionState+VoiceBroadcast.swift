/// Broadcast voice: a host or manager speaks to every room at once. One voice at a time, so
/// that two broadcasters never fight over everyone's first audio slot; `mediaSources` puts the
/// broadcaster's audio first for every connected user, wherever it is.
extension SessionState {
    func decideStartVoiceBroadcast(_ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        if let current = voiceBroadcaster {
            let message =
                current == me.id
                ? "You are already broadcasting your voice."
                : "\(users[current]?.name ?? "\(current)") is already broadcasting; one voice at a time."
            throw CaucusError(.voiceBroadcastBusy, message)
        }
        return [.voiceBroadcast(me.id, active: true)]
    }

    /// The broadcaster stops its own broadcast; the host (or the server) may stop anyone's.
    func decideStopVoiceBroadcast(_ context: Context) throws(CaucusError) -> [Event] {
        guard let current = voiceBroadcaster else {
            throw CaucusError(.noVoiceBroadcast, "Nobody is broadcasting their voice.")
        }
        if let caller = context.caller, caller.id != current, role(of: caller) != .host {
            throw .notPermitted("stop another's voice broadcast", needs: "the broadcaster or the host")
        }
        return [.voiceBroadcast(current, active: false)]
    }
}
