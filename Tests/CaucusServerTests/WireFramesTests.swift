import CaucusCore
import CaucusJSON
import CaucusProtocol
import NIOCore
import Testing

@testable import CaucusServer

/// The join reply with its user list spliced in from `EncodedUserList` is byte for byte the
/// reply encoded whole, whatever happened to the users between replies.
@Suite struct WireFramesTests {
    private static let limits = SessionLimits(maxSubsessions: 8, maxPasswordLength: 10, maxUsersPerSession: 40, maxRoomCapacity: 40, reconnectGraceSeconds: 20)

    /// A session walked at random — joins (some named to look like the list's own JSON),
    /// renames, leaves, drops, returns, moves, plans with empty rooms — with a join reply
    /// encoded both ways for a random viewer after every step, through one encoding.
    @Test func aSplicedJoinReplyIsTheReplyEncodedWhole() throws {
        var random = SplitMix64(seed: 0xC0FFEE)
        let wire = WireFrames()
        var state = SessionState(limits: Self.limits)
        var now = Instant(seconds: 1_000)
        let names = ["Ann", #""users":[]"#, "Bo \"users\":[] ,", "Zoë", "\u{1F600}", "Cy\\n", "Dee"]
        var compared = 0
        var spliced = 0
        for step in 0..<600 {
            now = now.adding(seconds: 1)
            let present = Array(state.users.keys)
            let someone = present.isEmpty ? nil : present[Int(random.next() % UInt64(present.count))]
            let command: (Command, Principal)
            switch random.next() % 10 {
            case 0, 1, 2, 3:
                let name = names[Int(random.next() % UInt64(names.count))] + "\(step)"
                command = (.join(JoinRequest(sessionName: "Class", userName: name, claim: present.isEmpty ? .host : .participant)), .server)
            case 4: command = (.rename(someone ?? UserID(1), to: "R\(step)"), .user(someone ?? UserID(1)))
            case 5: command = (.leave(endSession: false), .user(someone ?? UserID(1)))
            case 6: command = (.connectionLost(someone ?? UserID(1)), .server)
            case 7: command = (.resume(someone ?? UserID(1)), .server)
            case 8: command = (.addToPreList(["Red\(step)", #""users":[]\#(step)"#]), .user(state.hostID ?? UserID(1)))
            default: command = (random.next() % 2 == 0 ? .commit : .start(StartOptions(autoAssign: true)), .user(state.hostID ?? UserID(1)))
            }
            if let events = try? state.decide(command.0, by: command.1, at: now, entropy: random.next()) {
                for event in events { state.apply(event) }
            }
            guard !state.users.isEmpty else { continue }
            let viewers = Array(state.users.keys)
            let viewer = viewers[Int(random.next() % UInt64(viewers.count))]
            let snapshot = SessionSnapshot(state: state, viewer: viewer, seq: step)
            // With TURN, half the time: a credential that looks like the list's own JSON too.
            let relays = step % 2 == 0 ? [] : [ICEServer(urls: ["turns:turn.test:443?transport=tcp"], username: #"1:"users":[]"#, credential: "c+/=")]
            let whole = wire.frame(.reply(re: step, result: .joined(user: viewer, secret: "s", snapshot: snapshot, iceServers: relays)))
            let joined = wire.joinedReply(re: step, user: viewer, secret: "s", snapshot: snapshot, iceServers: relays)
            #expect(Array(buffer: joined) == Array(buffer: whole), "step \(step)")
            compared += 1
            if snapshot.users.count > 1 { spliced += 1 }
        }
        #expect(spliced > 300, "the walk must keep a session of several users: \(spliced) of \(compared)")
    }

    /// The list itself, against the array encoded whole, through changes anywhere in it.
    @Test func theListIsReEncodedFromTheFirstUserThatDiffers() throws {
        let list = EncodedUserList()
        let encoder = StreamingJSONEncoder.caucus
        func user(_ id: Int, _ name: String, _ location: Location = .main) -> UserView {
            UserView(id: UserID(id), name: name, role: .participant, location: location, presence: .connected, identity: nil, joinedAt: Instant(seconds: 5))
        }
        let lists: [[UserView]] = [
            [],
            [user(1, "Ann")],
            [user(1, "Ann"), user(2, "Bo")],
            [user(1, "Ann"), user(2, "Bo"), user(3, "Cy")],
            [user(1, "Ann"), user(2, "Bob"), user(3, "Cy")],
            [user(1, "Ann"), user(3, "Cy")],
            [user(1, "Ann", .room(RoomID(2))), user(3, "Cy"), user(4, "Dee")],
            [user(3, "Cy"), user(4, "Dee")],
            [],
            [user(5, "Eve")],
        ]
        for users in lists {
            var bytes: [UInt8] = []
            list.write(users, into: &bytes, with: encoder)
            var whole: [UInt8] = []
            try encoder.encode(users, appendingTo: &whole)
            #expect(bytes == whole, "\(users.map(\.name))")
        }
    }
}
