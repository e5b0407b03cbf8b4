@testable import Caucus
import Foundation
import Testing

/// Every kind of `SessionEvent` reaches a delegate callback of its own, then the catch-all:
/// each event is handed to the SDK's delivery (`deliver`, what the session's main-actor task
/// calls) and the recorder says which of its methods ran. `callback(for:)` switches over every
/// case without a default, so a new event kind does not compile here until it is given one.
@Suite struct DelegateCoverageTests {
    /// The callback an event must reach, by the recorder's name for it; nil for the two whose
    /// callbacks are the password askers `join` calls (see `PasswordTests`).
    static func callback(for event: SessionEvent) -> String? {
        switch event {
        case .sessionJoined: "sessionDidJoin"
        case .sessionLeft: "didLeave"
        case .connectionStateChanged: "connectionStateDidChange"
        case .needPassword, .passwordWrong: nil
        case .error: "didFail"
        case .resynchronized: "didResynchronize"
        case .usersJoined: "usersDidJoin"
        case .usersLeft: "usersDidLeave"
        case .hostChanged: "hostDidChange"
        case .managerChanged: "managerDidChange"
        case .userRenamed: "userWasRenamed"
        case .userConnectionChanged: "userConnectionDidChange"
        case .modeChanged: "modeDidChange"
        case .settingsChanged: "settingsDidChange"
        case .preListChanged: "preListDidChange"
        case .subsessionStatusChanged: "subsessionStatusDidChange"
        case .managerHandle: "didReceiveManagerHandle"
        case .participantHandle: "didReceiveParticipantHandle"
        case .subsessionUsersUpdated: "subsessionUsersDidUpdate"
        case .usersMoved: "usersDidMove"
        case .moved: "didMoveTo"
        case .assignmentsChanged: "assignmentsDidChange"
        case .subsessionRenamed: "subsessionWasRenamed"
        case .invited: "didReceiveInvitation"
        case .usersInvited: "usersWereInvited"
        case .invitationRejected: "invitationWasRejected"
        case .parentControlChanged: "parentControlDidChange"
        case .timerChanged: "timerDidChange"
        case .timerWarning: "timerWillEnd"
        case .helpRequested: "didReceiveHelpRequest"
        case .helpRequestResult: "didReceiveHelpResult"
        case .helpRequestAnswered: "helpRequestWasAnswered"
        case .broadcast: "didReceiveBroadcast"
        case .mediaChanged: "mediaDidChange"
        case .mediaMuted: "mediaWasMuted"
        case .voiceBroadcastChanged: "voiceBroadcastDidChange"
        case .listeningChanged: "listeningDidChange"
        case .recordingChanged: "recordingDidChange"
        case .recordingStopped: "recordingDidStop"
        case .chatMessage: "didReceiveChatMessage"
        }
    }

    /// One event of every kind, with values from a real session where the SDK alone makes them.
    static func everyKind(from host: Client, engine: SessionEngine) throws -> [SessionEvent] {
        let snapshot = try host.snapshot
        let me = snapshot.myself
        let kit = try #require(snapshot.subsessions.first)
        let manager = SubsessionManager(engine: engine)
        let participant = SubsessionParticipant(subsession: kit, engine: engine)
        let request = HelpRequest(id: HelpRequestID(1), requester: me.id, requesterName: me.name, room: kit.id, roomName: kit.name)
        let message = ChatMessage(id: MessageID(1), from: me.id, scope: .room(.main), text: "hi", sentAt: Date(timeIntervalSince1970: 1))
        return [
            .sessionJoined(snapshot), .sessionLeft(.left), .connectionStateChanged(.connected), .needPassword, .passwordWrong,
            .error(.timedOut), .resynchronized(snapshot),
            .usersJoined([me]), .usersLeft([me], reason: .left), .hostChanged(from: nil, to: me), .managerChanged(me),
            .userRenamed(me), .userConnectionChanged(me), .modeChanged(.lecture), .settingsChanged(snapshot.settings),
            .preListChanged([PlannedRoom(name: "Red")]), .subsessionStatusChanged(.committed, [kit]), .managerHandle(manager),
            .participantHandle(participant), .subsessionUsersUpdated(kit), .usersMoved([UserMove(user: me.id, to: .main)]),
            .moved(to: kit), .assignmentsChanged([kit]), .subsessionRenamed(kit), .invited(to: kit, by: me),
            .usersInvited([me], to: kit, by: nil), .invitationRejected(me, kit), .parentControlChanged(.open),
            .timerChanged(BreakoutTimer(endsAt: Date(timeIntervalSince1970: 600))), .timerWarning(remaining: .seconds(60)),
            .helpRequested(HelpRequestHandler(request, engine: engine)), .helpRequestResult(.busy),
            .helpRequestAnswered(request.id, result: .ignored, by: me), .broadcast("hello", from: me), .mediaChanged(me),
            .mediaMuted(me, kinds: .audio, by: me), .voiceBroadcastChanged(me, active: true), .listeningChanged(me, kit, active: true),
            .recordingChanged(locations: [.main], recordingMe: true), .recordingStopped(locations: [.main], reason: .diskFull),
            .chatMessage(message, from: me),
        ]
    }

    @MainActor
    @Test func everyEventKindReachesItsOwnCallbackThenTheCatchAll() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        let events = try Self.everyKind(from: host, engine: host.session.engine)

        let recorder = EveryCallbackRecorder()
        for event in events {
            recorder.calls = []
            recorder.received = []
            recorder.deliver(event, from: host.session)
            #expect(recorder.calls == [Self.callback(for: event), "didReceive"].compactMap { $0 }, "\(event)")
            #expect(recorder.received == [event], "the catch-all hears the event itself")
        }
        // The samples reach every callback the recorder has (the password askers aside).
        let reached = Set(events.compactMap(Self.callback(for:)))
        #expect(reached == EveryCallbackRecorder.eventCallbacks)
        await server.stop()
    }
}

/// A delegate implementing every callback, recording which ran.
@MainActor
final class EveryCallbackRecorder: CaucusSessionDelegate {
    var calls: [String] = []
    var received: [SessionEvent] = []

    static let eventCallbacks: Set<String> = [
        "sessionDidJoin", "didLeave", "connectionStateDidChange", "didFail", "didResynchronize", "usersDidJoin", "usersDidLeave",
        "hostDidChange", "managerDidChange", "userWasRenamed", "userConnectionDidChange", "mediaDidChange", "mediaWasMuted",
        "voiceBroadcastDidChange", "listeningDidChange", "recordingDidChange", "recordingDidStop", "modeDidChange",
        "settingsDidChange", "preListDidChange", "subsessionStatusDidChange", "didReceiveManagerHandle",
        "didReceiveParticipantHandle", "subsessionUsersDidUpdate", "usersDidMove", "didMoveTo", "assignmentsDidChange",
        "subsessionWasRenamed", "didReceiveInvitation", "usersWereInvited", "invitationWasRejected", "parentControlDidChange",
        "timerDidChange", "timerWillEnd", "didReceiveBroadcast", "didReceiveHelpRequest", "didReceiveHelpResult",
        "helpRequestWasAnswered", "didReceiveChatMessage",
    ]

    func sessionDidJoin(_ session: CaucusSession) { calls.append("sessionDidJoin") }
    func session(_ session: CaucusSession, didLeave reason: SessionLeftReason) { calls.append("didLeave") }
    func session(_ session: CaucusSession, connectionStateDidChange state: ConnectionState) { calls.append("connectionStateDidChange") }
    func session(_ session: CaucusSession, didFail error: SessionError) { calls.append("didFail") }
    func session(_ session: CaucusSession, didResynchronize snapshot: CaucusSession.Snapshot) { calls.append("didResynchronize") }
    func sessionNeedsPassword(_ session: CaucusSession) async -> String? {
        calls.append("sessionNeedsPassword")
        return nil
    }
    func sessionPasswordWasWrong(_ session: CaucusSession) async -> String? {
        calls.append("sessionPasswordWasWrong")
        return nil
    }
    func session(_ session: CaucusSession, usersDidJoin users: [CaucusUser]) { calls.append("usersDidJoin") }
    func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser], reason: LeaveReason) { calls.append("usersDidLeave") }
    func session(_ session: CaucusSession, hostDidChangeFrom oldHost: CaucusUser?, to newHost: CaucusUser) { calls.append("hostDidChange") }
    func session(_ session: CaucusSession, managerDidChange user: CaucusUser) { calls.append("managerDidChange") }
    func session(_ session: CaucusSession, userWasRenamed user: CaucusUser) { calls.append("userWasRenamed") }
    func session(_ session: CaucusSession, userConnectionDidChange user: CaucusUser) { calls.append("userConnectionDidChange") }
    func session(_ session: CaucusSession, mediaDidChange user: CaucusUser) { calls.append("mediaDidChange") }
    func session(_ session: CaucusSession, mediaWasMuted user: CaucusUser, kinds: MediaKinds, by: CaucusUser?) {
        calls.append("mediaWasMuted")
    }
    func session(_ session: CaucusSession, voiceBroadcastDidChange broadcaster: CaucusUser, active: Bool) {
        calls.append("voiceBroadcastDidChange")
    }
    func session(_ session: CaucusSession, listeningDidChange listener: CaucusUser, in room: SubsessionKit, active: Bool) {
        calls.append("listeningDidChange")
    }
    func session(_ session: CaucusSession, recordingDidChange locations: [CaucusLocation], recordingMe: Bool) {
        calls.append("recordingDidChange")
    }
    func session(_ session: CaucusSession, recordingDidStop locations: [CaucusLocation], reason: RecordingStopReason) {
        calls.append("recordingDidStop")
    }
    func session(_ session: CaucusSession, modeDidChange mode: SessionMode) { calls.append("modeDidChange") }
    func session(_ session: CaucusSession, settingsDidChange settings: SessionSettings) { calls.append("settingsDidChange") }
    func session(_ session: CaucusSession, preListDidChange preList: [PlannedRoom]) { calls.append("preListDidChange") }
    func session(_ session: CaucusSession, subsessionStatusDidChange status: SubsessionStatus, subsessions: [SubsessionKit]) {
        calls.append("subsessionStatusDidChange")
    }
    func session(_ session: CaucusSession, didReceiveManagerHandle manager: SubsessionManager?) { calls.append("didReceiveManagerHandle") }
    func session(_ session: CaucusSession, didReceiveParticipantHandle participant: SubsessionParticipant?) {
        calls.append("didReceiveParticipantHandle")
    }
    func session(_ session: CaucusSession, subsessionUsersDidUpdate subsession: SubsessionKit) { calls.append("subsessionUsersDidUpdate") }
    func session(_ session: CaucusSession, usersDidMove moves: [UserMove]) { calls.append("usersDidMove") }
    func session(_ session: CaucusSession, didMoveTo subsession: SubsessionKit?) { calls.append("didMoveTo") }
    func session(_ session: CaucusSession, assignmentsDidChange subsessions: [SubsessionKit]) { calls.append("assignmentsDidChange") }
    func session(_ session: CaucusSession, subsessionWasRenamed subsession: SubsessionKit) { calls.append("subsessionWasRenamed") }
    func session(_ session: CaucusSession, didReceiveInvitationTo subsession: SubsessionKit, from inviter: CaucusUser?) {
        calls.append("didReceiveInvitation")
    }
    func session(_ session: CaucusSession, usersWereInvited users: [CaucusUser], to subsession: SubsessionKit, by inviter: CaucusUser?) {
        calls.append("usersWereInvited")
    }
    func session(_ session: CaucusSession, invitationWasRejectedBy user: CaucusUser, for subsession: SubsessionKit) {
        calls.append("invitationWasRejected")
    }
    func session(_ session: CaucusSession, parentControlDidChange control: ParentControl) { calls.append("parentControlDidChange") }
    func session(_ session: CaucusSession, timerDidChange timer: BreakoutTimer?) { calls.append("timerDidChange") }
    func session(_ session: CaucusSession, timerWillEndIn remaining: Duration) { calls.append("timerWillEnd") }
    func session(_ session: CaucusSession, didReceiveBroadcast message: String, from sender: CaucusUser?) {
        calls.append("didReceiveBroadcast")
    }
    func session(_ session: CaucusSession, didReceiveHelpRequest handler: HelpRequestHandler) { calls.append("didReceiveHelpRequest") }
    func session(_ session: CaucusSession, didReceiveHelpResult result: HelpResult) { calls.append("didReceiveHelpResult") }
    func session(_ session: CaucusSession, helpRequestWasAnswered request: HelpRequestID, result: HelpResult, by answerer: CaucusUser?) {
        calls.append("helpRequestWasAnswered")
    }
    func session(_ session: CaucusSession, didReceiveChatMessage message: ChatMessage, from sender: CaucusUser?) {
        calls.append("didReceiveChatMessage")
    }
    func session(_ session: CaucusSession, didReceive event: SessionEvent) {
        calls.append("didReceive")
        received.append(event)
    }
}
