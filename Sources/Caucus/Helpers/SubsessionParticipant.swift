import CaucusCore

/// What a user in a subsession can do there. The session hands one out while this user is
/// in a subsession (`CaucusSession.subsessionParticipant`, or the participant-handle event).
///
/// Two participant handles are equal when they act for the same session object in the same
/// subsession (as its kit was).
public struct SubsessionParticipant: Sendable, Equatable {
    /// The subsession this user was in when the handle was made.
    public let subsession: SubsessionKit
    private let engine: SessionEngine

    init(subsession: SubsessionKit, engine: SessionEngine) {
        self.subsession = subsession
        self.engine = engine
    }

    public static func == (lhs: SubsessionParticipant, rhs: SubsessionParticipant) -> Bool {
        lhs.engine === rhs.engine && lhs.subsession == rhs.subsession
    }

    /// Leaves the subsession for the main session (if the session allows it).
    public func returnToMain() async throws(SessionError) {
        try await engine.perform(WireRequest(.returnToMain))
    }

    /// Asks the host and managers for help. The answer arrives as a help-request result
    /// (`busy` at once if no one is free in the main session).
    public func requestHelp() async throws(SessionError) {
        try await engine.perform(WireRequest(.requestHelp))
    }
}
