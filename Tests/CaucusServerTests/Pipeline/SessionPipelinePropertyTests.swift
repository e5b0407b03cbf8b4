import CaucusCore
import CaucusProtocol
import PropertyBased
import NIOConcurrencyHelpers
import Testing

@testable import CaucusServer

/// Random interleavings of joins, commands, store completions and failures, dropped
/// connections, resumes, ticks and roster windows. Whatever the order, every connection
/// receives its events in `seq` order, nothing from before its join (or the point it resumed
/// from), no event it may see is missing in between, and nothing — event or acknowledgement
/// — before the store has it.
@Suite struct SessionPipelineProperties {
    typealias Step = (kind: Int, who: Int, a: Int)

    static let steps = zip(Gen.int(in: 0...99), Gen.int(in: 0...7), Gen.int(in: 0...99)).array(of: 300)
    static let pingsCounted = NIOLockedValueBox(0)

    @Test(.shrinking(false))
    func everyConnectionSeesItsEventsInOrderWithNoGapAndNothingBeforeItIsDurable() async {
        await propertyCheck(count: 40, input: Self.steps) { steps in
            var walk = PipelineWalk(holdsRoster: (steps.first?.2 ?? 0) % 2 == 0)
            for step in steps { walk.take((kind: step.0, who: step.1, a: step.2)) }
            walk.finish()
            #expect(walk.harness.violations.isEmpty, "\(walk.harness.violations.prefix(5))")
            #expect(walk.problems.isEmpty, "\(walk.problems.prefix(5))")
            Self.pingsCounted.withLockedValue { $0 += walk.pingsCounted }
            #expect(walk.delivered > 0 || walk.broken || walk.ended, "a walk that delivers nothing proves nothing: \(walk.connections.count) connections, \(walk.harness.stored.count) stored, \(walk.harness.pipeline.seq) decided, storing \(walk.harness.storeCall?.count ?? -1)")
        }
        // The walks must have checked counts, not only pings the window could not answer.
        #expect(Self.pingsCounted.withLockedValue { $0 } > 40)
    }
}

/// One random walk over a pipeline, remembering each connection's user and starting point.
struct PipelineWalk {
    var harness: PipelineHarness
    /// Each connection: whose it is and the last seq it had before live events (join or resume).
    var connections: [Int: (user: UserID, baseline: Int?)] = [:]
    var current: [UserID: Int] = [:]
    var dropped: [UserID: Int] = [:]
    /// The seq of each user's own join, from its join reply.
    var joinSeq: [UserID: Int] = [:]
    var problems: [String] = []
    var broken = false
    /// Everyone left (their seats timed out): the session is over and the walk with it.
    var ended: Bool { if case .ended = harness.pipeline.state.lifecycle { true } else { false } }
    var delivered = 0
    /// Pings answered with a count (a walk's window may no longer reach back).
    var pingsCounted = 0
    var names = 0

    init(holdsRoster: Bool) {
        harness = PipelineHarness(replayWindow: 8, holdsRoster: holdsRoster)
    }

    mutating func take(_ step: SessionPipelineProperties.Step) {
        guard !broken, !ended else { return }
        harness.now = harness.now.adding(seconds: step.a % 3)
        let users = current.keys.sorted()
        let actor = users.isEmpty ? nil : users[step.who % users.count]
        do throws(CaucusError) {
            switch step.kind {
            case 0..<12:
                guard current.count < 7 else { return }
                names += 1
                let joined = try harness.join("U\(names)", claim: current.isEmpty ? .host : .participant)
                connections[joined.connection] = (joined.user, nil)
                current[joined.user] = joined.connection
            case 12..<35:
                if let actor { try harness.perform(.chat("m\(step.a)", to: .room), by: actor, from: current[actor]) }
            case 35..<40:
                if let actor, let other = users.randomElementStable(step.a) {
                    try harness.perform(.chat("d\(step.a)", to: .user(other)), by: actor, from: current[actor])
                }
            case 40..<50:
                if let actor { try harness.perform(breakoutCommand(step.a), by: actor, from: current[actor]) }
            case 50..<58:
                if let actor, let connection = current.removeValue(forKey: actor) {
                    harness.drop(actor, connection: connection)
                    dropped[actor] = connection
                }
            case 58..<66:
                let away = dropped.keys.sorted()
                guard !away.isEmpty else { return }
                let user = away[step.who % away.count]
                let old = dropped.removeValue(forKey: user)!
                let lastSeen = harness.eventSeqs(old).last ?? baseline(of: old)
                let connection = try harness.resume(user, after: lastSeen)
                connections[connection] = (user, nil)
                current[user] = connection
                // A replay starts right after what the user saw, and never before its own join.
                if case .resumed(_, let from?, _, _, _)? = harness.replies(connection).first, let joined = joinSeq[user] {
                    let expected = max(lastSeen, joined) + 1
                    if from != expected { problems.append("user \(user.rawValue) resumed after \(lastSeen): replay from \(from), expected \(expected)") }
                }
            case 66..<90:
                harness.storeSucceeds()
            case 90..<93:
                if let deadline = harness.tickAt, step.a % 2 == 0 {
                    harness.now = deadline
                    harness.tickAt = nil
                    harness.run(harness.pipeline.tick(at: deadline))
                }
            case 93..<96:
                harness.endRosterWindow()
            case 96..<98:
                if let actor, let connection = current[actor] { checkPing(by: actor, on: connection, pick: step.a) }
            default:
                if step.a < 4 {
                    harness.storeFails()
                    broken = harness.pipeline.lifecycle == .broken
                }
            }
        } catch {
            // Refusals are part of the walk; they must change nothing, which the delivery
            // checks below would notice.
        }
        learnBaselines()
    }

    /// A client's check that nothing went missing: from its baseline or an event it received,
    /// the server's count of what it sent must be what arrived (the reply comes after them).
    private mutating func checkPing(by user: UserID, on connection: Int, pick: Int) {
        guard let baseline = connections[connection]?.baseline else { return }
        let candidates = [baseline] + harness.eventSeqs(connection)
        let after = candidates[pick % candidates.count]
        let (seq, sent) = harness.ping(user, after: after, connection: connection)
        guard let seq, let sent else { return }
        pingsCounted += 1
        let arrived = harness.eventSeqs(connection).filter { $0 > after && $0 <= seq }.count
        if sent != arrived {
            problems.append("user \(user.rawValue) pinged after \(after): server counts \(sent) sent through \(seq), \(arrived) arrived")
        }
    }

    /// A breakout command the host or a participant may try: plan, commit, start, moves, stop.
    private func breakoutCommand(_ a: Int) -> Command {
        switch a % 8 {
        case 0: .addToPreList(["Red", "Blue"])
        case 1: .commit
        case 2: .start(StartOptions(autoAssign: true))
        case 3: .stop(countdownSeconds: nil)
        case 4: .joinRoom(RoomID(1 + a % 2))
        case 5: .returnToMain
        case 6: .broadcast("b\(a)")
        default: .makeManager(UserID(1 + a % 5))
        }
    }

    /// A connection's starting point, read from the reply it got: the join snapshot's seq, the
    /// resume's first replayed seq minus one, or the resume snapshot's seq.
    private mutating func learnBaselines() {
        for (connection, entry) in connections where entry.baseline == nil {
            for reply in harness.replies(connection) {
                switch reply {
                case .joined(let user, _, let snapshot, _):
                    connections[connection]!.baseline = snapshot.seq
                    joinSeq[user] = snapshot.seq
                case .resumed(_, let from?, _, _, _): connections[connection]!.baseline = from - 1
                case .resumed(_, nil, let snapshot?, _, _): connections[connection]!.baseline = snapshot.seq
                default: continue
                }
                break
            }
        }
    }

    private func baseline(of connection: Int) -> Int { connections[connection]?.baseline ?? 0 }

    /// Lets every store write finish and every held frame go, then checks each connection
    /// against the log: exactly the events its user was a recipient of after its baseline.
    mutating func finish() {
        if !broken {
            harness.settle()
            harness.endRosterWindow()
        }
        learnBaselines()
        let audiences = Self.recipientsBySeq(of: harness.stored)
        let durable = harness.stored.last?.seq ?? 0
        for (connection, entry) in connections.sorted(by: { $0.key < $1.key }) {
            let received = harness.eventSeqs(connection)
            delivered += received.count
            if received != received.sorted() || Set(received).count != received.count {
                problems.append("connection \(connection) got \(received): not in seq order")
            }
            guard let baseline = entry.baseline else {
                if !received.isEmpty { problems.append("connection \(connection) got events before its join reply") }
                continue
            }
            if let first = received.first, first <= baseline {
                problems.append("connection \(connection) got \(first), which its baseline \(baseline) includes")
            }
            // A connection still open got everything up to the end; one that was dropped or
            // closed, everything up to the last event it received.
            let stillOpen = current[entry.user] == connection && harness.closed[connection] == nil && !broken
            let upper = stillOpen ? durable : (received.last ?? baseline)
            let expected = (max(baseline, 0) + 1...max(upper, baseline + 1)).filter { seq in
                seq <= upper && audiences[seq]?.contains(entry.user) == true
            }
            if received != expected {
                problems.append("connection \(connection) of user \(entry.user.rawValue) from \(baseline): got \(received), expected \(expected)")
            }
        }
    }

    /// Who may see each stored event: its audience after it applied, plus those it took out.
    static func recipientsBySeq(of log: [SequencedEvent]) -> [Int: Set<UserID>] {
        var state = SessionState(limits: PipelineHarness.limits)
        var result: [Int: Set<UserID>] = [:]
        for event in log {
            let departed: [UserID] = switch event.event {
            case .sessionEnded: Array(state.users.keys)
            case .userLeft(let id, _, _): [id]
            default: []
            }
            state.apply(event.event)
            result[event.seq] = Set(state.recipients(of: state.audience(of: event.event)) + departed)
        }
        return result
    }
}

extension Array {
    /// An element chosen by a number, the same every run.
    func randomElementStable(_ n: Int) -> Element? { isEmpty ? nil : self[n % count] }
}
