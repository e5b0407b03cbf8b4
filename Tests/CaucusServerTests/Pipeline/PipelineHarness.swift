import CaucusCore
import CaucusProtocol
import CaucusStore

@testable import CaucusServer

/// Frames as plain values, so tests read what each connection got without decoding bytes.
struct ValueFrames: SessionFrameEncoding {
    func frame(_ frame: ServerFrame) -> ServerFrame { frame }

    /// Every frame counts 100 bytes in the replay window.
    func byteCount(of frame: ServerFrame) -> Int { 100 }
}

/// Drives a `SessionPipeline` the way the server's actor does, but with connections as
/// numbers and a store the test completes (or fails) when it chooses. It records what the
/// pipeline asked for and checks, as each action is performed, the promises no interleaving
/// may break: one store write at a time, and no reply before its events are durable.
struct PipelineHarness {
    typealias Pipeline = SessionPipeline<Int, ValueFrames>

    var pipeline: Pipeline
    /// What each connection was sent, in order.
    var inbox: [Int: [ServerFrame]] = [:]
    var closed: [Int: CloseCode] = [:]
    /// The requests each connection was told the session answered as it broke.
    var answered: [Int: [Int]] = [:]
    /// The batch the store is writing now.
    var storeCall: [SequencedEvent]?
    /// The store's log.
    var stored: [SequencedEvent] = []
    var completed: [Pipeline.Ticket: CaucusError?] = [:]
    var tickAt: Instant?
    var rosterWindowOpen = false
    /// The length of each roster window started.
    var rosterWindows: [Duration] = []
    var sessionClosed = false
    /// The snapshots the pipeline handed the store, in order.
    var snapshots: [StoredSnapshot] = []
    var violations: [String] = []
    var now = Instant(seconds: 1_000)
    private var nextConnection = 1

    static let limits = SessionLimits(maxSubsessions: 4, maxPasswordLength: 10, maxUsersPerSession: 12, maxRoomCapacity: 4, reconnectGraceSeconds: 20)

    /// `iceServers`: what a join or resume reply names for a user at a time (by default none).
    init(
        replayWindow: Int = 1_000, replayWindowBytes: Int = ReplayWindow<ServerFrame>.standardByteLimit, holdsRoster: Bool = false,
        snapshotInterval: Int = 0, iceServers: @escaping (UserID, Instant) -> [ICEServer] = { _, _ in [] }
    ) {
        pipeline = Pipeline(
            limits: Self.limits, encoding: ValueFrames(), replayWindow: replayWindow, replayWindowBytes: replayWindowBytes,
            rosterWindow: holdsRoster ? .milliseconds(5) : .zero,
            snapshotInterval: snapshotInterval, secret: { "secret-\($0.rawValue)" }, iceServers: iceServers)
    }

    mutating func newConnection() -> Int {
        defer { nextConnection += 1 }
        return nextConnection
    }

    mutating func run(_ actions: [Pipeline.Action]) {
        for action in actions {
            switch action {
            case .append(let events, let snapshot):
                if storeCall != nil { violations.append("a second store write while one is under way") }
                storeCall = events
                if let snapshot {
                    // The state at the batch's last event: what replaying the log up to it gives.
                    if snapshot.seq != events.last?.seq { violations.append("a snapshot at \(snapshot.seq) with a batch ending at \(events.last?.seq ?? 0)") }
                    snapshots.append(snapshot)
                }
            case .send(let deliveries):
                let durable = stored.last?.seq ?? 0
                for delivery in deliveries {
                    for frame in delivery.frames {
                        if case .reply(_, .done(let seq?)) = frame, seq > durable {
                            violations.append("done(\(seq)) sent while only \(durable) is durable")
                        }
                        if case .event(let event) = frame, event.seq > durable {
                            violations.append("event \(event.seq) sent while only \(durable) is durable")
                        }
                        // A snapshot promises everything it includes: all of it must be stored.
                        switch frame {
                        case .reply(_, .joined(_, _, let snapshot, _)), .reply(_, .resumed(_, _, let snapshot?, _, _)), .reply(_, .snapshot(let snapshot)):
                            if snapshot.seq > durable { violations.append("snapshot at \(snapshot.seq) sent while only \(durable) is durable") }
                        default:
                            break
                        }
                    }
                    // A reply may still be on its way to a socket that closed (the socket drops
                    // it), but an event is sent only to a user's current connection.
                    let events = delivery.frames.filter { if case .event = $0 { true } else { false } }
                    if closed[delivery.connection] != nil, !events.isEmpty {
                        violations.append("events sent to closed connection \(delivery.connection)")
                    }
                    inbox[delivery.connection, default: []] += delivery.frames
                }
            case .replay(let connection, let frames):
                run([.send([Pipeline.Delivery(connection: connection, frames: frames)])])
            case .sendShared(let connections, let frames):
                run([.send(connections.map { Pipeline.Delivery(connection: $0, frames: frames) })])
            case .answered(let connection, let requestIDs):
                answered[connection, default: []] += requestIDs
            case .close(let connection, let code, _):
                closed[connection] = code
            case .complete(let tickets, let failure):
                for ticket in tickets { completed[ticket] = failure }
            case .scheduleTick(let deadline):
                tickAt = deadline
            case .startRosterWindow(let window):
                rosterWindows.append(window)
                rosterWindowOpen = true
            case .sessionClosed:
                sessionClosed = true
            }
        }
    }

    /// The store finishes the batch it was given.
    mutating func storeSucceeds() {
        guard let batch = storeCall else { return }
        storeCall = nil
        stored += batch
        run(pipeline.batchStored())
    }

    mutating func storeFails() {
        guard storeCall != nil else { return }
        storeCall = nil
        run(pipeline.storeFailed())
    }

    /// The store refuses the opening batch: another node opened the name first.
    mutating func openingRefused() {
        guard storeCall != nil else { return }
        storeCall = nil
        run(pipeline.openingRefused())
    }

    /// Several nodes: the session's lease went to another node.
    mutating func leaseLost() {
        storeCall = nil
        run(pipeline.leaseLost())
    }

    /// Completes every store write, one after another, until none is left.
    mutating func settle() {
        while storeCall != nil { storeSucceeds() }
    }

    mutating func endRosterWindow() {
        rosterWindowOpen = false
        run(pipeline.rosterWindowEnded())
    }

    /// Joins a new user on a new connection; returns both (the user once the store has it).
    @discardableResult
    mutating func join(_ name: String, claim: RoleClaim = .participant, requestID: Int = 1) throws(CaucusError) -> (user: UserID, connection: Int) {
        let connection = newConnection()
        let joined = try pipeline.join(
            JoinRequest(sessionName: "Class", userName: name, claim: claim), requestID: requestID, connection: connection, at: now)
        run(joined.actions)
        return (joined.user, connection)
    }

    @discardableResult
    mutating func perform(_ command: Command, by user: UserID, from connection: Int? = nil, requestID: Int = 9) throws(CaucusError) -> Int? {
        let reply = connection.map { Pipeline.Reply(connection: $0, requestID: requestID) }
        let outcome = try pipeline.perform(command, by: .user(user), at: now, entropy: 7, reply: reply)
        run(outcome.actions)
        return outcome.last
    }

    mutating func drop(_ user: UserID, connection: Int) {
        closed[connection] = .normal
        run(pipeline.connectionClosed(user, connection: connection, at: now).actions)
    }

    mutating func resume(_ user: UserID, after lastSeq: Int, requestID: Int = 2) throws(CaucusError) -> Int {
        let connection = newConnection()
        run(try pipeline.resume(user, after: lastSeq, requestID: requestID, connection: connection, at: now).actions)
        return connection
    }

    /// A joined user's `ping`; its reply goes to `connection` after whatever the ping released.
    mutating func ping(_ user: UserID, after: Int?, connection: Int, requestID: Int = 3) -> (seq: Int?, sent: Int?) {
        let (result, actions) = pipeline.ping(from: user, after: after)
        run(actions)
        inbox[connection, default: []].append(.reply(re: requestID, result: result))
        guard case .pong(let seq, let sent) = result else { return (nil, nil) }
        return (seq, sent)
    }

    /// The seqs of the events a connection received, in the order received.
    func eventSeqs(_ connection: Int) -> [Int] {
        (inbox[connection] ?? []).compactMap { if case .event(let event) = $0 { event.seq } else { nil } }
    }

    func events(_ connection: Int) -> [Event] {
        (inbox[connection] ?? []).compactMap { if case .event(let event) = $0 { event.event } else { nil } }
    }

    func replies(_ connection: Int) -> [ReplyResult] {
        (inbox[connection] ?? []).compactMap { if case .reply(_, let result) = $0 { result } else { nil } }
    }
}
