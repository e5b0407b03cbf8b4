import CaucusCore
import PropertyBased
import Testing

/// What a client holds: random sessions (the same random walk as `SessionProperties`), and for
/// every present user a copy restored from its snapshot and advanced by exactly the events the
/// user receives. The copy is always the state that user may see.
@Suite struct ViewerProperties {
    @Test(.shrinking(false))
    func restoredSnapshotsFollowedByReceivedEventsStayTheVisibleState() async {
        await propertyCheck(count: 20, input: SessionProperties.steps) { steps in
            var walk = SessionProperties.Walk()
            var viewers: [UserID: SessionState] = [:]
            var problems: [String] = []
            for (index, step) in steps.enumerated() {
                var state = walk.state
                var logged = walk.log.count
                if case .ended = state.lifecycle {
                    // The walk starts a new session.
                    state = SessionState(limits: SessionProperties.limits)
                    viewers = [:]
                    logged = 0
                }
                walk.take(step, entropy: UInt64(index))
                if walk.failed { return }
                // The events of this step, each delivered to its recipients once applied.
                let events = walk.log[logged...]
                for event in events {
                    state.apply(event)
                    for id in state.recipients(of: event) { viewers[id]?.apply(event) }
                }
                #expect(state == walk.state)
                for id in viewers.keys where state.users[id] == nil { viewers[id] = nil }
                for (id, copy) in viewers where copy.visible(to: id) != state.visible(to: id) {
                    problems.append("step \(index): \(id)'s copy drifted: \(SessionProperties.Walk.differences(copy.visible(to: id), state.visible(to: id)))")
                }
                // Any present user's snapshot restores exactly what it may see; newcomers start there.
                for id in state.users.keys {
                    let restored = SessionState(restoring: SessionSnapshot(state: state, viewer: id, seq: index))
                    if restored != state.visible(to: id) {
                        problems.append("step \(index): \(id)'s snapshot restores \(SessionProperties.Walk.differences(restored, state.visible(to: id)))")
                    }
                    if viewers[id] == nil { viewers[id] = restored }
                }
                if !problems.isEmpty { break }
            }
            #expect(problems.isEmpty, "\(problems.prefix(3).joined(separator: "\n"))")
        }
    }

    @Test func theVisibleStateHidesWhatTheViewerMayNotSee() {
        var harness = Harness.session(participants: 2, password: "secret")
        harness.perform(.addToPreList(["A"]), by: host)
        let participant = harness.state.visible(to: UserID(2))
        #expect(participant.password == nil && participant.sessionKey == nil)
        #expect(participant.users.values.allSatisfy { $0.claim == nil })
        #expect(participant.preList.isEmpty)
        #expect(harness.state.visible(to: host).preList.count == 1)
        #expect(harness.state.password == "secret" && harness.state.users[host]?.claim == .host)
    }
}
