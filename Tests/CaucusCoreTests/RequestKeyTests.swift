@testable import CaucusCore
import Foundation
import Testing

/// Keyed commands (`RequestKey`): a chat sent again under its key after its outcome was lost
/// is applied once; the key given to another command is refused, changing nothing; the memory
/// survives the log and a snapshot (a restart, a node's takeover) and is bounded per user.
@Suite struct RequestKeyRules {
    static let key = try! RequestKey("7f3a-42")

    @Test func aRepeatUnderItsKeyIsAppliedOnceAndChangesNothing() {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["A"])
        let first = harness.perform(.chat("hello", to: .room, key: Self.key), by: UserID(2))
        guard case .chatMessage(let message) = first.first else {
            Issue.record("expected a chat message")
            return
        }
        #expect(message.requestKey == Self.key)
        let before = harness.state
        #expect(harness.perform(.chat("hello", to: .room, key: Self.key), by: UserID(2)).isEmpty)
        #expect(harness.state == before)
        // Whatever changed since, a repeat is still the message already sent: the parent paused
        // now refuses a participant's new message, not this one.
        harness.perform(.pauseParent, by: host)
        #expect(harness.perform(.chat("hello", to: .room, key: Self.key), by: UserID(2)).isEmpty)
        harness.refuse(.chat("hello", to: .room, key: try! RequestKey("another")), by: UserID(2), .parentPaused)
    }

    @Test func theKeyGivenToAnotherCommandIsRefusedAndChangesNothing() {
        var harness = Harness.session(participants: 2)
        harness.perform(.chat("hello", to: .room, key: Self.key), by: UserID(2))
        harness.refuse(.chat("hello again", to: .room, key: Self.key), by: UserID(2), .requestKeyReused)
        harness.refuse(.chat("hello", to: .user(host), key: Self.key), by: UserID(2), .requestKeyReused)
        // Keys are each user's own: the same key from another user is another command.
        #expect(harness.perform(.chat("hello", to: .room, key: Self.key), by: UserID(3)).count == 1)
        // Unkeyed messages are never taken for repeats.
        #expect(harness.perform(.chat("hello", to: .room), by: UserID(2)).count == 1)
        #expect(harness.perform(.chat("hello", to: .room), by: UserID(2)).count == 1)
    }

    @Test func theMemorySurvivesTheLogAndASnapshotAndHidesFromClients() throws {
        var harness = Harness.session(participants: 2)
        harness.perform(.chat("psst", to: .user(host), key: Self.key), by: UserID(2))
        // The log alone (a restart, or another node taking the session over).
        let log = try JSONDecoder().decode([Event].self, from: try JSONEncoder().encode(harness.log))
        var rebuilt = SessionState(replaying: log)
        #expect(rebuilt == harness.state)
        #expect(try rebuilt.decide(.chat("psst", to: .user(host), key: Self.key), by: .user(UserID(2)), at: harness.now, entropy: 0).isEmpty)
        // A snapshot of the whole state.
        let restored = try JSONDecoder().decode(SessionState.self, from: try JSONEncoder().encode(harness.state))
        #expect(restored == harness.state)
        #expect(restored.requestKeys[UserID(2)]?.count == 1)
        // A client's view holds none of it.
        #expect(harness.state.visible(to: UserID(2)).requestKeys.isEmpty)
        rebuilt.apply(.userLeft(UserID(2), reason: .left, newHost: nil))
        #expect(rebuilt.requestKeys[UserID(2)] == nil, "forgotten with the seat")
    }

    @Test func eachUserRemembersItsLatestKeysOnly() throws {
        var harness = Harness.session(participants: 1)
        let limit = SessionState.rememberedRequestLimit
        for index in 0...limit { harness.perform(.chat("message \(index)", to: .room, key: try RequestKey("k\(index)")), by: UserID(2)) }
        #expect(harness.state.requestKeys[UserID(2)]?.count == limit)
        // The oldest is forgotten: sent again, it is applied again.
        #expect(harness.perform(.chat("message 0", to: .room, key: try RequestKey("k0")), by: UserID(2)).count == 1)
        #expect(harness.perform(.chat("message \(limit)", to: .room, key: try RequestKey("k\(limit)")), by: UserID(2)).isEmpty)
    }

    @Test func aMalformedKeyIsRefusedSayingWhy() {
        for (text, says) in [("", "empty"), (String(repeating: "k", count: 65), "65 characters"), ("a b", "U+0020"), ("clé", "U+00E9")] {
            do {
                _ = try RequestKey(text)
                Issue.record("\"\(text)\" was taken")
            } catch {
                #expect(error.code == .invalidArguments)
                #expect(error.message.contains(says), "\(error.message)")
            }
        }
        #expect((try? RequestKey(String(repeating: "k", count: 64))) != nil)
        #expect((try? RequestKey("0c8f1f52-3f1e-4c1b-9d7e-2a4b6f0e9a11")) != nil)
        #expect((try? RequestKey("ios.app:retry_1")) != nil)
    }
}
