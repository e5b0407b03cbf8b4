import CaucusCore
import PropertyBased
import Testing

/// Random command sequences from random users and roles; after every step the brief's
/// invariants must hold. 20 sequences of 500 steps: 10,000 commands a run.
@Suite struct SessionProperties {
    /// One random step: which command, who sends it, and two free parameters.
    typealias Step = (kind: Int, caller: Int, a: Int, b: Int)

    static let steps = zip(Gen.int(in: 0...999), Gen.int(in: 0...15), Gen.int(in: 0...99), Gen.int(in: 0...99))
        .array(of: 500)

    /// Small limits so that the random walk meets them.
    static let limits = SessionLimits(maxSubsessions: 4, maxPasswordLength: 10, maxUsersPerSession: 12, maxRoomCapacity: 4, reconnectGraceSeconds: 20)

    @Test(.shrinking(false))
    func invariantsHoldAfterEveryStep() async {
        await propertyCheck(count: 20, input: Self.steps) { steps in
            var walk = Walk()
            for (index, step) in steps.enumerated() {
                walk.take(step, entropy: UInt64(index))
                if walk.failed { return }
            }
            #expect(walk.commands == steps.count)
            // A walk that is refused at every turn would prove nothing.
            #expect(walk.accepted >= 50, "only \(walk.accepted) commands accepted")
            #expect(walk.acceptedKinds.count >= 10, "only \(walk.acceptedKinds.sorted()) accepted")
        }
    }

    struct Walk {
        var state = SessionState(limits: SessionProperties.limits)
        var log: [Event] = []
        var now = Instant(seconds: 1_000)
        var commands = 0
        var accepted = 0
        var acceptedKinds = Set<String>()
        var failed = false

        mutating func take(_ step: Step, entropy: UInt64) {
            if case .ended = state.lifecycle {
                state = SessionState(limits: SessionProperties.limits)
                log = []
            }
            now = now.adding(seconds: step.b % 7)
            let command = command(for: step)
            // Joins come from the server, but now and then a user tries one too.
            let isJoin = if case .join = command { true } else { false }
            let principal = isJoin && step.caller > 0 ? .server : principal(for: step.caller)
            commands += 1
            let before = state
            do {
                let events = try state.decide(command, by: principal, at: now, entropy: entropy)
                var problems: [String] = []
                for event in events {
                    state.apply(event)
                    problems += audienceViolations(of: event)
                }
                log += events
                accepted += 1
                acceptedKinds.insert(command.operationName)
                report(problems)
            } catch {
                report(state == before ? [] : ["a refused \(command) changed the state"])
            }
            report(invariantViolations(after: command, by: principal))
        }

        mutating func report(_ problems: [String]) {
            guard !problems.isEmpty else { return }
            failed = true
            for problem in problems { Issue.record(Comment(rawValue: problem)) }
        }

        var userIDs: [UserID] { Array(state.users.keys) }

        func user(_ index: Int) -> UserID {
            // Now and then someone who is not (or no longer) there.
            guard !userIDs.isEmpty, index % 13 != 12 else { return UserID(index + 50) }
            return userIDs[index % userIDs.count]
        }

        func room(_ index: Int) -> RoomID {
            guard !state.rooms.isEmpty, index % 11 != 10 else { return RoomID(index + 90) }
            return state.rooms[index % state.rooms.count].id
        }

        func principal(for caller: Int) -> Principal {
            if caller >= 13 || userIDs.isEmpty { return .server }
            // Favour the host and managers, whose commands change the most.
            if caller < 5, let host = state.hostID { return .user(host) }
            if caller < 8, let manager = state.users.values.first(where: { $0.isManager }) { return .user(manager.id) }
            return .user(user(caller))
        }

        func command(for step: Step) -> Command {
            let (a, b) = (step.a, step.b)
            let names = ["Red", "Blue", "Green", "Gold", "Teal", "red"]
            switch step.kind % 55 {
            case 0, 1, 2, 3, 45:
                // Mostly the right password (if any); now and then none or a wrong one.
                let password = b % 6 == 0 ? (a % 2 == 0 ? nil : "wrong") : (state.isLive ? state.password : (a % 17 == 0 ? "pw" : nil))
                return .join(JoinRequest(sessionName: a % 9 == 0 ? "Other" : "Walk", userName: "User \(a)", claim: b % 10 == 0 ? .host : .participant, password: password))
            case 4: return .leave(endSession: a % 20 == 0)
            case 5: return a % 10 == 0 ? .endSession : .tick
            case 6: return .makeManager(user(a))
            case 7: return .revokeManager(user(a))
            case 8: return .transferHost(to: user(a))
            case 9: return .rename(user(a), to: a % 10 == 0 ? "" : "Name \(b)")
            case 10: return .remove(user(a))
            case 11: return .setMode(a % 2 == 0 ? .lecture : .group)
            case 12: return .updateSettings(SessionSettings(selfSelectAllowed: a % 3 != 0, returnToMainAllowed: a % 4 != 0, autoMoveOnStart: a % 5 != 0, roomCreators: RoomCreators.allCases[b % 3], countdownSeconds: b % 3 == 0 ? 0 : b, timerWarningSeconds: [a + 1], managersMayRecord: a % 6 == 0))
            case 13: return .connectionLost(user(a))
            case 14: return .resume(user(a))
            case 15, 16: return .tick
            case 17: return .addToPreList(Array(names[(a % 6)...].prefix(b % 3 + 1)))
            case 18: return .removeFromPreList([names[a % 6]])
            case 19: return .clearPreList
            case 20: return .preAssign([user(a), user(b)], to: names[a % 6])
            case 21: return .commit
            case 22: return .withdraw
            case 23: return .start(StartOptions(durationSeconds: a % 2 == 0 ? nil : b + 1, autoAssign: a % 3 != 0, autoMove: a % 7 == 0 ? false : nil))
            case 24: return .stop(countdownSeconds: a % 2 == 0 ? 0 : b % 10)
            case 25: return .broadcast("Broadcast \(a)")
            case 26: return .extendTimer(seconds: a)
            case 27, 28: return .joinRoom(room(a))
            case 29: return .returnToMain
            case 30: return .assign([user(a), user(b)], to: room(b))
            case 31: return .returnUser(user(a))
            case 32: return .autoAssign
            case 33: return .returnEveryone
            case 34: return .requestHelp
            case 35: return .answerHelp(HelpRequestID(a % 5 + 1), b % 2 == 0 ? .join : .ignore)
            case 36: return .createRooms(RoomDefinition(capacity: a % 4 == 0 ? nil : a % 5 + 1), count: b % 3)
            case 37: return .createAndInvite(RoomDefinition(capacity: a % 3 == 0 ? nil : 3), count: b % 3 + 1, forceJoin: a % 2 == 0)
            case 38: return .invite([user(a)], to: room(b), forceJoin: b % 2 == 0)
            case 39: return .acceptInvitation(room(a))
            case 40: return .rejectInvitation(room(a))
            case 41: return a % 2 == 0 ? .pauseParent : .resumeParent
            case 42: return a % 2 == 0 ? .muteParent(audio: b % 2 == 0, video: b % 3 == 0) : .unmuteParent(audio: b % 2 == 0, video: b % 3 == 0)
            case 43: return .destroyAll
            case 44, 46: return .chat(a % 25 == 0 ? " " : "Message \(a)", to: .room)
            case 47: return .renamePlannedRoom(names[a % 6], to: b % 10 == 0 ? "" : b % 2 == 0 ? names[b % 6] : "Plan \(b % 4)")
            case 48: return .renameRoom(room(a), to: b % 10 == 0 ? " " : b % 2 == 0 ? names[b % 6] : "Room \(b % 4)")
            case 49: return .unassign(a % 5 == 0 ? [] : [user(a), user(b)])
            case 50: return .publish(MediaKinds(rawValue: UInt8(b % 8)))
            case 51:
                let locations: [Location] = a % 3 == 0 ? [.main] : a % 3 == 1 ? [.room(room(b))] : [.room(room(b)), .main]
                return .startRecording(a % 4 == 0 ? .all : .locations(locations))
            case 52: return .stopRecording(a % 4 == 0 ? .all : .locations([b % 2 == 0 ? .main : .room(room(b))]))
            case 53: return .recordingFailed([b % 2 == 0 ? .main : .room(room(b))], RecordingStopReason.allCases[a % 3])
            default: return .chat("Direct \(a)", to: .user(user(b)))
            }
        }

        /// No event of one room reaches a user in another room.
        /// The top-level fields in which two states differ, for failure messages.
        static func differences(_ lhs: SessionState, _ rhs: SessionState) -> String {
            zip(Mirror(reflecting: lhs).children, Mirror(reflecting: rhs).children)
                .filter { String(describing: $0.value) != String(describing: $1.value) }
                .map { "\($0.label ?? "?"): \($0.value) vs \($1.value)" }
                .joined(separator: "; ")
        }

        func audienceViolations(of event: Event) -> [String] {
            guard case .chatMessage(let message) = event, case .room(let location) = message.scope else { return [] }
            return state.recipients(of: event).filter { state.users[$0]?.location != location }.map {
                "\(event) reached \($0) outside \(location)"
            }
        }

        func invariantViolations(after command: Command, by principal: Principal) -> [String] {
            var problems: [String] = []
            func check(_ condition: Bool, _ message: @autoclosure () -> String) {
                if !condition { problems.append(message()) }
            }
            let context = "after \(command) by \(principal)"
            // Each user is in at most one room, and the rooms agree with the users.
            var seen = Set<UserID>()
            for room in state.rooms {
                for occupant in room.occupants {
                    check(seen.insert(occupant).inserted, "\(occupant) is in two rooms \(context)")
                    check(state.users[occupant]?.location == .room(room.id), "\(room.id) lists \(occupant) who is elsewhere \(context)")
                }
            }
            for user in state.users.values {
                if case .room(let id) = user.location {
                    check(state.room(id)?.occupants.contains(user.id) == true, "\(user.id) is in a room that does not list it \(context)")
                }
            }
            // A plan expects each user in one room at most.
            let assigned = state.rooms.flatMap(\.assigned)
            check(Set(assigned).count == assigned.count, "a user assigned to two rooms \(context)")
            let planned = state.preList.flatMap(\.assigned)
            check(Set(planned).count == planned.count, "a user pre-assigned to two rooms \(context)")
            // Room names are unique in the plan and among the rooms, so a name says which room;
            // a waiting help request names its room as it is called now.
            let plannedNames = state.preList.map { SessionName.key($0.name) }
            check(Set(plannedNames).count == plannedNames.count, "two planned rooms named alike \(context)")
            let roomNames = state.rooms.map { SessionName.key($0.name) }
            check(Set(roomNames).count == roomNames.count, "two rooms named alike \(context)")
            for request in state.helpRequests {
                check(state.room(request.room)?.name == request.roomName, "help request \(request.id) names an old room name \(context)")
            }
            // Recording names only rooms that exist, each once, and never a room while every room is on.
            let recordedRooms = state.recording.locations.compactMap(\.roomID)
            check(recordedRooms.allSatisfy { state.room($0) != nil }, "recording names a room that is gone \(context)")
            check(Set(state.recording.locations).count == state.recording.locations.count, "a location recorded twice \(context)")
            check(!state.recording.everyRoom || recordedRooms.isEmpty, "rooms named while every room is recorded \(context)")
            // Never more rooms than the limit.
            check(state.rooms.count <= state.limits.maxSubsessions, "\(state.rooms.count) rooms \(context)")
            check(state.preList.count <= state.limits.maxSubsessions, "\(state.preList.count) planned rooms \(context)")
            // Exactly one host while anyone is present.
            if !state.users.isEmpty {
                check(state.hostID.flatMap { state.users[$0] } != nil, "no host among \(state.users.count) users \(context)")
            }
            check(state.users.values.filter { state.role(of: $0) == .host }.count == (state.users.isEmpty ? 0 : 1), "host count \(context)")
            // Rooms hold people only while they are open.
            if !state.phase.isRunning {
                check(state.users.values.allSatisfy { $0.location == .main }, "someone in a closed room \(context)")
            }
            // Replaying every emitted event from empty gives the live state exactly.
            let replayed = SessionState(limits: SessionProperties.limits, replaying: log)
            check(replayed == state, "replay diverged \(context): \(Self.differences(replayed, state))")
            return problems
        }
    }
}
