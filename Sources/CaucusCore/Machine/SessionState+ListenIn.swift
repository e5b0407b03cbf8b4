/// Listen-in: a host or manager hears and sees one open room without joining it. It stays
/// where it is (its own publications go on reaching its own location, never the room), and the
/// room always knows: the event goes to everyone and every snapshot lists the listeners.
extension SessionState {
    func decideListenIn(_ id: RoomID, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        let room = try openRoom(id, for: "listen in to a subsession")
        if me.location == .room(id) {
            throw CaucusError(.alreadyInRoom, "You are in '\(room.name)': you hear it already; listening in is from elsewhere.")
        }
        if listeners[me.id] == id {
            throw CaucusError(.alreadyListening, "You are already listening in to '\(room.name)'.")
        }
        // One room at a time: listening to another ends the first.
        var events: [Event] = []
        if let previous = listeners[me.id] { events.append(.listening(me.id, room: previous, active: false)) }
        events.append(.listening(me.id, room: id, active: true))
        return events
    }

    func decideStopListening(_ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard let room = listeners[me.id] else {
            throw CaucusError(.notListening, "You are not listening in to any subsession.")
        }
        return [.listening(me.id, room: room, active: false)]
    }

    /// Who listens in to `room`, in the order they began.
    public func listeners(of room: RoomID) -> [UserID] {
        listeners.filter { $0.value == room }.map(\.key)
    }
}
