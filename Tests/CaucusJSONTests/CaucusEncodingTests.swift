import CaucusCore
import CaucusJSON
import CaucusProtocol
import Foundation
import Testing

/// Every event, frame and reply Caucus sends or stores encodes as Foundation's JSONEncoder does.
@Suite struct CaucusEncodingTests {
    @Test func everyEventMatchesFoundation() throws {
        for event in EncodingFixtures.events {
            try Compare.expectSame(event, "\(event)")
        }
        let covered = Set(EncodingFixtures.events.map(\.kind))
        #expect(covered == Set(Event.Kind.allCases), "missing: \(Set(Event.Kind.allCases).subtracting(covered))")
    }

    @Test func everyEventFrameMatchesFoundation() throws {
        for (index, event) in EncodingFixtures.events.enumerated() {
            let frame = ServerFrame.event(SequencedEvent(seq: index + 1, at: EncodingFixtures.t0, event: event))
            try Compare.expectSame(frame, "\(event)")
            // The store encodes the sequenced event itself.
            try Compare.expectSame(SequencedEvent(seq: index + 1, at: EncodingFixtures.t0, event: event))
        }
    }

    /// The store keeps claims and the password; a client's frame of the same event has neither,
    /// and a joining user comes in the snapshot's shape, with its role.
    @Test func eventFramesCarryNoClaimOrPassword() throws {
        for (index, event) in EncodingFixtures.events.enumerated() {
            let frame = ServerFrame.event(SequencedEvent(seq: index + 1, at: EncodingFixtures.t0, event: event))
            let text = Compare.text(try StreamingJSONEncoder.caucus.encode(frame))
            #expect(!text.contains("\"claim\""), "\(text)")
            #expect(!text.contains("p\\/w") && !text.contains("\"password\"") && !text.contains("\"sessionKey\""), "\(text)")
            let stored = Compare.text(try StreamingJSONEncoder.caucus.encode(event))
            if case .userJoined(let user, _) = event {
                #expect(stored.contains("\"claim\""))
                let decoded = try JSONDecoder().decode(ServerFrame.self, from: Data(text.utf8))
                guard case .event(let received) = decoded, case .userJoined(let seat, _) = received.event else {
                    Issue.record("\(text) decodes as \(decoded)")
                    continue
                }
                #expect(seat.claim == nil && seat.id == user.id && seat.isManager == user.isManager)
            }
        }
    }

    /// Members come in the order `encode(to:)` wrote them, the same every run.
    @Test func membersKeepEncodingOrder() throws {
        let message = ChatMessage(id: MessageID(9), from: UserID(5), scope: .direct(to: UserID(1)), text: "a/b", sentAt: EncodingFixtures.t0)
        let frame = ServerFrame.event(SequencedEvent(seq: 12, at: Instant(milliseconds: 5), event: .chatMessage(message)))
        let bytes = try Compare.expectSame(frame)
        #expect(
            Compare.text(bytes)
                == #"{"seq":12,"at":5,"event":{"type":"chatMessage","message":{"id":9,"from":5,"scope":{"to":1},"text":"a\/b","sentAt":1700000000000}}}"#)
    }

    @Test func everyReplyMatchesFoundation() throws {
        let state = try EncodingFixtures.session(users: 12)
        let hostView = SessionSnapshot(state: state, viewer: UserID(1), seq: 40)
        let participantView = SessionSnapshot(state: state, viewer: UserID(6), seq: 40)
        // The snapshot really is a rich one.
        #expect(hostView.users.count == 12)
        #expect(hostView.breakout.rooms.count >= 3)
        #expect(hostView.helpRequests != nil && participantView.preList == nil)
        let results: [ReplyResult] = [
            .joined(user: UserID(1), secret: "s3cr3t/+=", snapshot: hostView),
            .joined(user: UserID(6), secret: "x", snapshot: participantView),
            .resumed(user: UserID(6), replayingFrom: 17, snapshot: nil),
            .resumed(user: UserID(6), replayingFrom: nil, snapshot: participantView),
            .done(seq: 41),
            .done(seq: nil),
            .preList([PlannedRoom(name: "Red", assigned: [UserID(2)]), PlannedRoom(name: "Blue")]),
            .preList([]),
            .committed(state.snapshot),
            .started(true),
            .started(false),
            .snapshot(hostView),
            .pong(seq: nil, sent: nil),
            .pong(seq: 12, sent: nil),
            .pong(seq: 12, sent: 3),
            .joined(user: UserID(6), secret: "x", snapshot: participantView, iceServers: Self.relays),
            .resumed(user: UserID(6), replayingFrom: 17, snapshot: nil, iceServers: Self.relays),
            .resumed(user: UserID(6), replayingFrom: nil, snapshot: participantView, iceServers: Self.relays),
            .resumed(user: UserID(6), replayingFrom: 17, snapshot: nil, mediaKept: true),
            .iceServers(Self.relays),
            .iceServers([]),
        ]
        for (index, result) in results.enumerated() {
            try Compare.expectSame(ServerFrame.reply(re: index, result: result), "\(result)")
        }
        try Compare.expectSame(hostView)
    }

    @Test func errorsMatchFoundation() throws {
        let bodies = [
            ErrorBody(code: 409, name: "conflict", message: "Can't \"commit\" now / try later"),
            ErrorBody(code: 400, name: "badRequest", message: "", status: .commitFailed),
            ErrorBody(code: -1, name: "x\u{0}", message: "🎉", status: .stopFailed),
        ]
        for body in bodies {
            try Compare.expectSame(body)
            try Compare.expectSame(ServerFrame.error(re: nil, body))
            try Compare.expectSame(ServerFrame.error(re: 77, body))
        }
    }

    static let relays = [
        ICEServer(urls: ["turns:turn.example.org:443?transport=tcp", "turn:[2001:db8::1]:3478"], username: "1790000000:3.1", credential: "2LpdpU/yMIXL7qlxj39IAh0Yuvs=")
    ]

    /// TURN servers travel in join and resume replies only when there are some, and the
    /// `getIceServers` reply, even an empty one, decodes as that reply and nothing else.
    @Test func iceServersRoundTripAndAreLeftOutWhenNone() throws {
        let state = try EncodingFixtures.session(users: 3)
        let snapshot = SessionSnapshot(state: state, viewer: UserID(1), seq: 9)
        let frames: [ServerFrame] = [
            .reply(re: 1, result: .joined(user: UserID(1), secret: "s", snapshot: snapshot, iceServers: Self.relays)),
            .reply(re: 2, result: .resumed(user: UserID(1), replayingFrom: 4, snapshot: nil, iceServers: Self.relays)),
            .reply(re: 3, result: .iceServers(Self.relays)),
            .reply(re: 4, result: .iceServers([])),
        ]
        for frame in frames {
            #expect(try JSONDecoder().decode(ServerFrame.self, from: Data(try Compare.expectSame(frame))) == frame)
        }
        let without = Compare.text(try Compare.expectSame(ServerFrame.reply(re: 5, result: .resumed(user: UserID(1), replayingFrom: 4, snapshot: nil))))
        #expect(without == #"{"re":5,"result":{"user":1,"replayingFrom":4}}"#)
        // A kept media peer is said only when it is (`mediaKept`), and read back.
        let kept = ServerFrame.reply(re: 6, result: .resumed(user: UserID(1), replayingFrom: 4, snapshot: nil, mediaKept: true))
        #expect(Compare.text(try Compare.expectSame(kept)) == #"{"re":6,"result":{"user":1,"replayingFrom":4,"mediaKept":true}}"#)
        #expect(try JSONDecoder().decode(ServerFrame.self, from: Data(try Compare.expectSame(kept))) == kept)
        #expect(Compare.text(try Compare.expectSame(frames[3])) == #"{"re":4,"result":{"iceServers":[]}}"#)
    }

    /// The encoder's output decodes back to the same frame.
    @Test func framesRoundTrip() throws {
        let state = try EncodingFixtures.session(users: 30)
        let frame = ServerFrame.reply(re: 3, result: .joined(user: UserID(1), secret: "s", snapshot: SessionSnapshot(state: state, viewer: UserID(1), seq: 9)))
        let bytes = try Compare.expectSame(frame)
        #expect(try JSONDecoder().decode(ServerFrame.self, from: Data(bytes)) == frame)
        for event in EncodingFixtures.events {
            #expect(try JSONDecoder().decode(Event.self, from: Data(try StreamingJSONEncoder.caucus.encode(event))) == event)
        }
    }
}
