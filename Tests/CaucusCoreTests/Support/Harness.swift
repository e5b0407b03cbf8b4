import CaucusCore
import Testing

/// Drives one session's state machine the way the server does: decide, then apply, checking
/// on every refusal that nothing was emitted and nothing changed, and on every success that
/// replaying the log rebuilds the live state.
struct Harness {
    var state: SessionState
    var log: [Event] = []
    var now = Instant(seconds: 1_700_000_000)
    var entropy: UInt64 = 42

    init(limits: SessionLimits = .standard, settings: SessionSettings = .standard) {
        state = SessionState(limits: limits, settings: settings)
    }

    /// A live session with a host (`u1`) and `participants` more users (`u2`…).
    static func session(
        participants: Int = 3, password: String? = nil, limits: SessionLimits = .standard,
        settings: SessionSettings = .standard
    ) -> Harness {
        var harness = Harness(limits: limits, settings: settings)
        harness.join("Host", claim: .host, password: password)
        for index in 0..<participants { harness.join("User \(index + 2)", password: password) }
        return harness
    }

    @discardableResult
    mutating func join(
        _ userName: String, claim: RoleClaim = .participant, password: String? = nil, session: String = "Class",
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> UserID {
        let events = perform(
            .join(JoinRequest(sessionName: session, userName: userName, claim: claim, password: password)), by: .server,
            sourceLocation: sourceLocation)
        for case .userJoined(let user, _) in events { return user.id }
        Issue.record("join emitted no userJoined", sourceLocation: sourceLocation)
        return UserID(0)
    }

    /// Performs a command that must succeed, returning its events.
    @discardableResult
    mutating func perform(
        _ command: Command, by principal: Principal, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Event] {
        do {
            let events = try state.decide(command, by: principal, at: now, entropy: entropy)
            for event in events { state.apply(event) }
            log += events
            #expect(SessionState(replaying: log) == state, "replay diverged after \(command)", sourceLocation: sourceLocation)
            return events
        } catch {
            Issue.record("\(command) by \(principal) was refused: \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    @discardableResult
    mutating func perform(_ command: Command, by user: UserID, sourceLocation: SourceLocation = #_sourceLocation) -> [Event] {
        perform(command, by: .user(user), sourceLocation: sourceLocation)
    }

    /// Expects `command` to be refused with `code`, emitting and changing nothing.
    func refuse(
        _ command: Command, by principal: Principal, _ code: CaucusError.Code,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = state
        do {
            let events = try state.decide(command, by: principal, at: now, entropy: entropy)
            Issue.record("\(command) by \(principal) was accepted with \(events); expected \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(command): \(error.message)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
        #expect(state == before, sourceLocation: sourceLocation)
    }

    func refuse(_ command: Command, by user: UserID, _ code: CaucusError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        refuse(command, by: .user(user), code, sourceLocation: sourceLocation)
    }

    mutating func advance(seconds: Int) { now = now.adding(seconds: seconds) }

    /// Advances the clock and lets it act.
    @discardableResult
    mutating func tick(after seconds: Int, sourceLocation: SourceLocation = #_sourceLocation) -> [Event] {
        advance(seconds: seconds)
        return perform(.tick, by: .server, sourceLocation: sourceLocation)
    }

    func location(of id: UserID) -> Location? { state.users[id]?.location }

    func roomID(named name: String) -> RoomID {
        state.rooms.first { $0.name == name }?.id ?? RoomID(0)
    }

    /// The host plans `names`, commits and (optionally) starts.
    mutating func commitRooms(_ names: [String], by host: UserID = UserID(1)) {
        perform(.addToPreList(names), by: host)
        perform(.commit, by: host)
    }

    mutating func startRooms(_ names: [String], options: StartOptions = StartOptions(), by host: UserID = UserID(1)) {
        commitRooms(names, by: host)
        perform(.start(options), by: host)
    }
}

let host = UserID(1)
