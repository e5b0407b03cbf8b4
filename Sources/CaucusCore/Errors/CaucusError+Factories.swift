/// The messages, written once, so that every refusal of a kind reads the same.
extension CaucusError {
    static func notPermitted(_ operation: String, needs: String) -> Self {
        .init(.notPermitted, "Only \(needs) may \(operation).")
    }
    static func userNotFound(_ id: UserID) -> Self { .init(.userNotFound, "No user \(id) in this session.") }
    static func roomNotFound(_ id: RoomID) -> Self { .init(.roomNotFound, "No subsession \(id) in the committed list.") }
    static func wrongStatus(_ operation: String, _ status: SubsessionStatus) -> Self {
        .init(.wrongStatus, "Cannot \(operation) while subsessions are \(status.rawValue).")
    }
    static func tooLong(_ code: Code, _ what: String, limit: Int) -> Self {
        .init(code, "\(what) is longer than \(limit) characters.")
    }
    static let lectureMode = Self(.lectureMode, "Breakout rooms are not available in lecture mode.")
    static let userRequired = Self(.userRequired, "This operation acts on the caller's own seat; only a joined user may do it.")
    static let sessionEnded = Self(.sessionEnded, "This session has ended.")
    static let sessionNotStarted = Self(.sessionNotStarted, "This session has not started; the first frame must be a join.")
    static let notInRoom = Self(.notInRoom, "You are not in a subsession.")
    static let notInParentRoom = Self(.notInParentRoom, "This can only be done from the main session.")
}
