import ArgumentParser
import CaucusCore
import CaucusJSON
import CaucusProtocol
import Foundation

struct EncodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Per-encode CPU time of Foundation's JSONEncoder and StreamingJSONEncoder on a chat event frame and a 100-user join reply.")

    @Option(help: "Encodes per run of the chat event frame.") var chatEncodes = 200_000
    @Option(help: "Encodes per run of the joined reply.") var joinEncodes = 5_000
    @Option(help: "Users in the joined reply's snapshot (the host included).") var users = 100
    @Option(help: "Runs; the median is reported.") var runs = 5
    @Flag(help: "Time only the streaming encoder (for profiling).") var streamingOnly = false
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        let chat = ServerFrame.event(
            SequencedEvent(
                seq: 123_456, at: Instant(milliseconds: 1_700_000_123_456),
                event: .chatMessage(
                    ChatMessage(
                        id: MessageID(98_765), from: UserID(42), scope: .room(.room(RoomID(3))),
                        text: "Could everyone in room 3 open the shared doc? It's at /docs/plan.", sentAt: Instant(milliseconds: 1_700_000_123_456)))))
        let state = try Self.session(users: users)
        let joined = ServerFrame.reply(
            re: 1, result: .joined(user: UserID(1), secret: "c2VjcmV0LXJlc3VtZS10b2tlbg", snapshot: SessionSnapshot(state: state, viewer: UserID(1), seq: 500)))

        var report = Report(scenario: "encode")
        for (name, frame, count) in [("chat event frame", chat, chatEncodes), ("joined reply, \(users) users", joined, joinEncodes)] {
            // One encoder of each kind, reused, as SessionActor keeps its JSONEncoder.
            let jsonEncoder = JSONEncoder()
            let streamingEncoder = StreamingJSONEncoder.caucus
            let foundation = streamingOnly ? .nan : try Self.median(runs: runs) { try Self.time(count) { _ = try jsonEncoder.encode(frame) } }
            let streaming = try Self.median(runs: runs) { try Self.time(count) { _ = try streamingEncoder.encode(frame) } }
            let size = try StreamingJSONEncoder.caucus.encode(frame).count
            report.add("\(name): bytes", "\(size)")
            report.add("\(name): JSONEncoder", Self.format(foundation))
            report.add("\(name): StreamingJSONEncoder", Self.format(streaming))
            report.add("\(name): speed-up", (foundation / streaming).formatted(decimals: 1) + "x")
        }
        report.add("runs", "\(runs) (median of per-encode thread CPU time)")
        report.print(json: json)
    }

    /// Nanoseconds per call of `body`, over `count` calls: this thread's CPU time, which other
    /// work on a shared machine disturbs much less than the wall clock.
    static func time(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = threadCPUNanoseconds()
        for _ in 0..<count { try body() }
        return (threadCPUNanoseconds() - start) / Double(count)
    }

    static func threadCPUNanoseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    }

    static func median(runs: Int, _ run: () throws -> Double) rethrows -> Double {
        var values: [Double] = []
        for _ in 0..<max(1, runs) { values.append(try run()) }
        values.sort()
        return values[values.count / 2]
    }

    static func format(_ nanoseconds: Double) -> String {
        nanoseconds >= 10_000 ? (nanoseconds / 1000).formatted(decimals: 1) + " µs" : nanoseconds.formatted(decimals: 0) + " ns"
    }

    /// A session of `users` (the first the host) after a planned, committed and started breakout.
    static func session(users: Int) throws -> SessionState {
        var state = SessionState()
        var now = Instant(seconds: 1_700_000_000)
        func run(_ command: Command, by principal: Principal) throws {
            now = Instant(milliseconds: now.milliseconds + 1)
            for event in try state.decide(command, by: principal, at: now, entropy: 1) { state.apply(event) }
        }
        try run(.join(JoinRequest(sessionName: "bench", userName: "Host", claim: .host)), by: .server)
        for index in 1..<max(1, users) {
            try run(
                .join(JoinRequest(sessionName: "bench", userName: "Participant \(index)", userIdentity: "user-\(index)@example.com")),
                by: .server)
        }
        try run(.addToPreList((1...10).map { "Room \($0)" }), by: .user(UserID(1)))
        try run(.commit, by: .user(UserID(1)))
        try run(.start(StartOptions(durationSeconds: 900, autoAssign: true)), by: .user(UserID(1)))
        return state
    }
}
