import CaucusCore
import Foundation
import PropertyBased
import Testing

/// The store keeps a session's whole state as a snapshot, and a rebuild starts from it: the
/// state must come back from its JSON exactly (passwords, claims, what each user publishes and
/// the numbering of what comes next included), and a snapshot plus the events after it must
/// rebuild the session the whole log rebuilds. Random walks of `SessionProperties`.
@Suite struct SnapshotProperties {
    @Test(.shrinking(false))
    func aSnapshotPlusTheEventsAfterItRebuildsWhatTheWholeLogRebuilds() async throws {
        await propertyCheck(count: 20, input: SessionProperties.steps) { steps in
            var walk = SessionProperties.Walk()
            var roundTrips = 0
            for (index, step) in steps.enumerated() {
                walk.take(step, entropy: UInt64(index))
                if walk.failed { return }
                // Every state on the way, whatever it holds, comes back from its snapshot.
                guard let restored = Self.roundTrip(walk.state) else { return }
                #expect(restored == walk.state, "step \(index): the snapshot lost something")
                roundTrips += 1
            }
            #expect(roundTrips == steps.count)

            // The last session's log, cut anywhere: the snapshot at the cut, then the tail.
            let whole = SessionState(limits: SessionProperties.limits, replaying: walk.log)
            #expect(whole == walk.state)
            for cut in stride(from: 0, through: walk.log.count, by: max(1, walk.log.count / 10)) {
                let head = SessionState(limits: SessionProperties.limits, replaying: walk.log[..<cut])
                guard var rebuilt = Self.roundTrip(head) else { return }
                for event in walk.log[cut...] { rebuilt.apply(event) }
                #expect(rebuilt == whole, "snapshot after \(cut) of \(walk.log.count) events")
            }
        }
    }

    @Test func aSnapshotKeepsWhatAClientNeverSees() throws {
        var session = Harness.session(participants: 1, password: "secret")
        let host = UserID(1)
        session.perform(.chat("hi", to: .room), by: host)
        session.perform(.publish([.audio, .video]), by: host)
        let restored = try #require(Self.roundTrip(session.state))
        #expect(restored.password == "secret")
        #expect(restored.users[host]?.claim == .host)
        #expect(restored.users[host]?.publishing == [.audio, .video])
        #expect(restored == session.state)
    }

    static func roundTrip(_ state: SessionState) -> SessionState? {
        do {
            return try JSONDecoder().decode(SessionState.self, from: try JSONEncoder().encode(state))
        } catch {
            Issue.record("the snapshot does not round-trip: \(error)")
            return nil
        }
    }
}
