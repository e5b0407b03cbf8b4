import CaucusCore

/// A participant's request for help, as the host and managers receive it. Answer it once:
/// ignore it, or join the requester's subsession. The requester hears the result.
public struct HelpRequestHandler: Sendable, Identifiable, Hashable {
    public let request: HelpRequest
    private let engine: SessionEngine

    init(_ request: HelpRequest, engine: SessionEngine) {
        self.request = request
        self.engine = engine
    }

    public var id: HelpRequestID { request.id }
    /// Who asked.
    public var requester: UserID { request.requester }
    public var userName: String { request.requesterName }
    /// Where they are.
    public var subsessionID: RoomID { request.room }
    public var subsessionName: String { request.roomName }

    /// Declines: the requester hears `ignored`.
    public func ignore() async throws(SessionError) {
        try await engine.perform(.answerHelp(id, .ignore))
    }

    /// Goes to the requester's subsession: returns once this user is there, and the requester
    /// hears `managerJoining` (or `managerAlreadyInSubsession`).
    public func join() async throws(SessionError) {
        try await engine.perform(.answerHelp(id, .join))
    }

    public static func == (lhs: HelpRequestHandler, rhs: HelpRequestHandler) -> Bool { lhs.request == rhs.request }
    public func hash(into hasher: inout Hasher) { hasher.combine(request) }
}
