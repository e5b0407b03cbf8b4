import CaucusCore
import CaucusProtocol
import Testing

@testable import CaucusServer

/// The TURN servers a user is given: in its join reply and in every resume reply (replay or
/// snapshot), each minted for that user at that moment, so a resume brings fresh credentials.
@Suite struct SessionPipelineICEServersTests {
    /// A stand-in minter whose credentials say for whom and when they were made.
    static func relays(_ user: UserID, _ now: Instant) -> [ICEServer] {
        [ICEServer(urls: ["turns:turn.test:443?transport=tcp"], username: "\(now.milliseconds / 1000):\(user.rawValue)", credential: "c")]
    }

    @Test func theJoinReplyNamesTheTURNServersWithTheJoinersOwnCredentials() throws {
        var h = PipelineHarness(iceServers: Self.relays)
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        for seat in [ann, bo] {
            guard case .joined(seat.user, _, _, let servers)? = h.replies(seat.connection).first else { Issue.record("\(h.inbox)"); return }
            #expect(servers == Self.relays(seat.user, h.now))
        }
    }

    @Test func everyResumeReplyNamesThemAgainMintedAtTheResume() throws {
        var h = PipelineHarness(replayWindow: 2, iceServers: Self.relays)
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        h.drop(bo.user, connection: bo.connection)
        h.now = h.now.adding(seconds: 600)
        try h.perform(.chat("a", to: .room), by: ann.user)
        h.settle()
        let replayed = try h.resume(bo.user, after: 5)
        guard case .resumed(_, _?, nil, let fresh, _)? = h.replies(replayed).first else { Issue.record("\(h.inbox[replayed] ?? [])"); return }
        #expect(fresh == Self.relays(bo.user, h.now))
        h.settle()
        h.drop(bo.user, connection: replayed)
        h.now = h.now.adding(seconds: 600)
        for text in ["b", "c", "d"] { try h.perform(.chat(text, to: .room), by: ann.user) }
        h.settle()
        let fromSnapshot = try h.resume(bo.user, after: 3)
        guard case .resumed(_, nil, _?, let again, _)? = h.replies(fromSnapshot).first else { Issue.record("\(h.inbox[fromSnapshot] ?? [])"); return }
        #expect(again == Self.relays(bo.user, h.now))
        #expect(again != fresh, "minted anew at each resume")
    }

    @Test func withoutTURNNoReplyNamesAny() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        guard case .joined(_, _, _, let servers)? = h.replies(ann.connection).first else { Issue.record("\(h.inbox)"); return }
        #expect(servers.isEmpty)
        let back = try h.resume(ann.user, after: 2)
        guard case .resumed(_, _, _, let again, _)? = h.replies(back).first else { Issue.record("\(h.inbox[back] ?? [])"); return }
        #expect(again.isEmpty)
    }
}
