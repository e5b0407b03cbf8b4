import CaucusCore
import Testing

/// The permission matrix: every (role × operation) pair. Each operation is prepared so that it
/// would succeed for a permitted caller; permitted callers succeed, every other caller is
/// refused with `notPermitted` (the server, on operations that need a seat of one's own, with
/// `userRequired`) and nothing is emitted or changed.
@Suite struct PermissionMatrix {
    enum Caller: String, CaseIterable, CustomTestStringConvertible {
        case host, manager, participant, server

        var principal: Principal {
            switch self {
            case .host: .user(UserID(1))
            case .manager: .user(UserID(2))
            case .participant: .user(UserID(3))
            case .server: .server
            }
        }

        var id: UserID? {
            if case .user(let id) = principal { return id }
            return nil
        }

        var testDescription: String { rawValue }
    }

    /// The expected permissions, written from the brief rather than read from the code.
    static let users: Set<Caller> = [.host, .manager, .participant]
    static let managing: Set<Caller> = [.host, .manager, .server]
    static let hostOnly: Set<Caller> = [.host, .server]
    static let serverOnly: Set<Caller> = [.server]

    struct Operation: Sendable, CustomTestStringConvertible {
        let name: String
        let allowed: Set<Caller>
        /// Sets the session up for `caller` and returns the command to try.
        let prepare: @Sendable (inout Harness, Caller) -> Command

        var testDescription: String { name }
    }

    /// u1 host, u2 manager, u3 participant (the callers), u4 and u5 participants (targets).
    static func base() -> Harness {
        var harness = Harness.session(participants: 4)
        harness.perform(.makeManager(UserID(2)), by: host)
        return harness
    }

    static let target = UserID(4)

    static func started(_ harness: inout Harness, duration: Int? = nil) {
        harness.startRooms(["A", "B"], options: StartOptions(durationSeconds: duration))
    }

    static let operations: [Operation] = [
        Operation(name: "join", allowed: serverOnly) { _, _ in .join(JoinRequest(sessionName: "Class", userName: "New")) },
        Operation(name: "leave", allowed: users) { _, _ in .leave(endSession: false) },
        Operation(name: "endSession", allowed: hostOnly) { _, _ in .endSession },
        Operation(name: "makeManager", allowed: hostOnly) { _, _ in .makeManager(target) },
        Operation(name: "revokeManager", allowed: hostOnly) { harness, _ in
            harness.perform(.makeManager(UserID(5)), by: host)
            return .revokeManager(UserID(5))
        },
        Operation(name: "transferHost", allowed: hostOnly) { _, _ in .transferHost(to: target) },
        Operation(name: "rename another", allowed: hostOnly) { _, _ in .rename(target, to: "Renamed") },
        Operation(name: "rename self", allowed: Set(Caller.allCases)) { _, caller in .rename(caller.id ?? target, to: "Me") },
        Operation(name: "remove", allowed: hostOnly) { _, _ in .remove(target) },
        Operation(name: "setMode", allowed: hostOnly) { _, _ in .setMode(.lecture) },
        Operation(name: "updateSettings", allowed: hostOnly) { _, _ in .updateSettings(SessionSettings(countdownSeconds: 5)) },
        Operation(name: "connectionLost", allowed: serverOnly) { _, _ in .connectionLost(target) },
        Operation(name: "resume", allowed: serverOnly) { harness, _ in
            harness.perform(.connectionLost(target), by: .server)
            return .resume(target)
        },
        Operation(name: "tick", allowed: serverOnly) { _, _ in .tick },
        Operation(name: "addToPreList", allowed: hostOnly) { _, _ in .addToPreList(["A"]) },
        Operation(name: "removeFromPreList", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            return .removeFromPreList(["A"])
        },
        Operation(name: "clearPreList", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            return .clearPreList
        },
        Operation(name: "preAssign", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            return .preAssign([target], to: "A")
        },
        Operation(name: "renamePlannedRoom", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            return .renamePlannedRoom("A", to: "Z")
        },
        Operation(name: "unassign", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            harness.perform(.preAssign([target], to: "A"), by: host)
            return .unassign([target])
        },
        Operation(name: "commit", allowed: hostOnly) { harness, _ in
            harness.perform(.addToPreList(["A"]), by: host)
            return .commit
        },
        Operation(name: "withdraw", allowed: hostOnly) { harness, _ in
            harness.commitRooms(["A"])
            return .withdraw
        },
        Operation(name: "start", allowed: managing) { harness, _ in
            harness.commitRooms(["A"])
            return .start(StartOptions(autoAssign: true))
        },
        Operation(name: "stop", allowed: managing) { harness, _ in
            started(&harness)
            return .stop(countdownSeconds: 0)
        },
        Operation(name: "broadcast", allowed: managing) { harness, _ in
            started(&harness)
            return .broadcast("Hello rooms")
        },
        Operation(name: "extendTimer", allowed: managing) { harness, _ in
            started(&harness, duration: 60)
            return .extendTimer(seconds: 60)
        },
        Operation(name: "joinRoom", allowed: users) { harness, _ in
            started(&harness)
            return .joinRoom(harness.roomID(named: "A"))
        },
        Operation(name: "returnToMain", allowed: users) { harness, caller in
            started(&harness)
            harness.perform(.assign([caller.id ?? target], to: harness.roomID(named: "A")), by: host)
            return .returnToMain
        },
        Operation(name: "assign", allowed: managing) { harness, _ in
            started(&harness)
            return .assign([target], to: harness.roomID(named: "A"))
        },
        Operation(name: "returnUser", allowed: managing) { harness, _ in
            started(&harness)
            harness.perform(.assign([target], to: harness.roomID(named: "A")), by: host)
            return .returnUser(target)
        },
        Operation(name: "autoAssign", allowed: managing) { harness, _ in
            started(&harness)
            return .autoAssign
        },
        Operation(name: "returnEveryone", allowed: managing) { harness, _ in
            started(&harness)
            harness.perform(.assign([target], to: harness.roomID(named: "A")), by: host)
            return .returnEveryone
        },
        Operation(name: "requestHelp", allowed: users) { harness, caller in
            started(&harness)
            harness.perform(.assign([caller.id ?? target], to: harness.roomID(named: "A")), by: .server)
            return .requestHelp
        },
        Operation(name: "answerHelp", allowed: [.host, .manager]) { harness, _ in
            started(&harness)
            harness.perform(.assign([target], to: harness.roomID(named: "A")), by: host)
            harness.perform(.requestHelp, by: target)
            return .answerHelp(harness.state.helpRequests[0].id, .join)
        },
        Operation(name: "createRooms", allowed: managing) { _, _ in .createRooms(RoomDefinition(), count: 2) },
        Operation(name: "createAndInvite", allowed: managing) { _, _ in
            .createAndInvite(RoomDefinition(), count: 2, forceJoin: true)
        },
        Operation(name: "invite", allowed: managing) { harness, _ in
            started(&harness)
            return .invite([target], to: harness.roomID(named: "A"), forceJoin: false)
        },
        Operation(name: "acceptInvitation", allowed: users) { harness, caller in
            started(&harness)
            let a = harness.roomID(named: "A")
            harness.perform(.invite([caller.id ?? target], to: a, forceJoin: false), by: .server)
            return .acceptInvitation(a)
        },
        Operation(name: "rejectInvitation", allowed: users) { harness, caller in
            started(&harness)
            let a = harness.roomID(named: "A")
            harness.perform(.invite([caller.id ?? target], to: a, forceJoin: false), by: .server)
            return .rejectInvitation(a)
        },
        Operation(name: "pauseParent", allowed: managing) { harness, _ in
            started(&harness)
            return .pauseParent
        },
        Operation(name: "resumeParent", allowed: managing) { harness, _ in
            started(&harness)
            harness.perform(.pauseParent, by: host)
            return .resumeParent
        },
        Operation(name: "muteParent", allowed: managing) { harness, _ in
            started(&harness)
            return .muteParent(audio: true, video: true)
        },
        Operation(name: "unmuteParent", allowed: managing) { harness, _ in
            started(&harness)
            harness.perform(.muteParent(audio: true, video: false), by: host)
            return .unmuteParent(audio: true, video: false)
        },
        Operation(name: "destroyAll", allowed: managing) { harness, _ in
            started(&harness)
            return .destroyAll
        },
        Operation(name: "renameRoom", allowed: managing) { harness, _ in
            started(&harness)
            return .renameRoom(harness.roomID(named: "A"), to: "Z")
        },
        Operation(name: "chat", allowed: users) { _, _ in .chat("hello", to: .room) },
        Operation(name: "publish", allowed: users) { _, _ in .publish([.audio, .video]) },
        Operation(name: "muteUser", allowed: [.host, .manager]) { harness, _ in
            harness.perform(.publish([.audio, .video]), by: target)
            return .muteUser(target, .audio)
        },
        Operation(name: "startVoiceBroadcast", allowed: [.host, .manager]) { _, _ in .startVoiceBroadcast },
        Operation(name: "stopVoiceBroadcast", allowed: managing) { harness, caller in
            // The caller's own broadcast (the host's for those who cannot broadcast).
            harness.perform(.startVoiceBroadcast, by: caller == .manager ? UserID(2) : host)
            return .stopVoiceBroadcast
        },
        Operation(name: "listenIn", allowed: [.host, .manager]) { harness, _ in
            started(&harness)
            return .listenIn(harness.roomID(named: "A"))
        },
        Operation(name: "stopListening", allowed: [.host, .manager]) { harness, caller in
            started(&harness)
            harness.perform(.listenIn(harness.roomID(named: "A")), by: caller == .manager ? UserID(2) : host)
            return .stopListening
        },
        Operation(name: "recordingFailed", allowed: serverOnly) { harness, _ in
            harness.perform(.startRecording(.locations([.main])), by: host)
            return .recordingFailed([.main], .diskFull)
        },
    ]

    @Test(arguments: operations, Caller.allCases)
    func rolePermission(_ operation: Operation, _ caller: Caller) {
        var harness = Self.base()
        let command = operation.prepare(&harness, caller)
        if operation.allowed.contains(caller) {
            let events = harness.perform(command, by: caller.principal)
            if command != .tick { #expect(!events.isEmpty, "\(operation.name) by \(caller) emitted nothing") }
        } else {
            let expected: CaucusError.Code = caller == .server && command.needsOwnSeat ? .userRequired : .notPermitted
            harness.refuse(command, by: caller.principal, expected)
        }
    }

    @Test func theMatrixCoversEveryOperation() {
        // One row per case of `Command` (54) but `startRecording` and `stopRecording`, whose callers
        // depend on a setting (RecordingRules); rename twice: of oneself and of another.
        #expect(Set(Self.operations.map(\.name)).count == Self.operations.count)
        #expect(Self.operations.count == 53)
    }
}
