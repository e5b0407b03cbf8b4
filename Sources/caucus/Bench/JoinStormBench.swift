import ArgumentParser
import Foundation
import Synchronization

/// Joins at a fixed rate into sessions of a fixed size: the rate sustained and the join
/// latency (join frame sent → reply) percentiles. DESIGN §5: 1,000 joins/s, p99 ≤ 5 ms.
struct JoinStormBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "join-storm", abstract: "Sustained joins at a fixed rate.")

    @OptionGroup var server: ServerOptions
    @Option(help: "Joins per second to attempt.") var rate = 1_000
    @Option(help: "Seconds to keep it up.") var seconds = 5
    @Option(help: "Users per session.") var sessionSize = 100

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        let total = rate * seconds
        let latencies = Locked(Latencies())
        let failures = Counter()
        // Connect first: the storm measures joins, not TCP and WebSocket handshakes.
        let users = try await withThrowingTaskGroup(of: BenchUser.self) { tasks in
            var connected: [BenchUser] = []
            for index in 0..<total {
                tasks.addTask {
                    let user = BenchUser()
                    try await user.connect(to: target, group: group)
                    return user
                }
                // At most 256 handshakes in flight.
                if index >= 256, let user = try await tasks.next() { connected.append(user) }
            }
            for try await user in tasks { connected.append(user) }
            return connected
        }
        let interval = Duration.seconds(1) / rate
        let clock = ContinuousClock()
        let start = clock.now
        let finished = try await withThrowingTaskGroup(of: ContinuousClock.Instant.self) { tasks in
            for (index, user) in users.enumerated() {
                try await clock.sleep(until: start + interval * index)
                let session = "storm-\(index / sessionSize)"
                let token = try target.token(session: session, role: .participant)
                tasks.addTask {
                    let sent = clock.now
                    do {
                        try await user.request("join", #""session":"\#(session)","userName":"User \#(index)","token":"\#(token)""#)
                        let done = clock.now
                        latencies.withLock { $0.record(done - sent) }
                        return done
                    } catch {
                        failures.add()
                        return clock.now
                    }
                }
            }
            var last = start
            for try await done in tasks { last = max(last, done) }
            return last
        }
        let measured = latencies.withLock { $0 }
        var report = Report(scenario: "join-storm")
        report.add("joins", "\(measured.count) of \(total) (\(failures.count) failed), sessions of \(sessionSize)")
        report.add("attempted rate", "\(rate)/s for \(seconds) s")
        report.add("sustained rate", "\(Int(Double(measured.count) / (finished - start).milliseconds * 1000))/s")
        report.add("join p50", milliseconds: measured.p50)
        report.add("join p99", milliseconds: measured.p99)
        report.add("join max", milliseconds: measured.max)
        report.add("target", "1,000 joins/s with p99 ≤ 5 ms")
        report.print(json: server.json)
    }
}
