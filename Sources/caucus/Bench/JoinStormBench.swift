import ArgumentParser
import Foundation
import NIOConcurrencyHelpers

/// Joins at a fixed rate into sessions of a fixed size: the rate sustained, the join latency
/// (join frame sent → reply) percentiles, and how long after the last join every user has
/// heard of every other who joined after it. DESIGN §5: 1,000 joins/s, p99 ≤ 5 ms.
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
        // Each user hears of everyone who joins its session after it: n(n-1)/2 per session.
        let sessionSizes = stride(from: 0, to: total, by: sessionSize).map { min(sessionSize, total - $0) }
        let rosterNews = Arrivals(expecting: sessionSizes.reduce(0) { $0 + $1 * ($1 - 1) / 2 })
        // Connect first: the storm measures joins, not TCP and WebSocket handshakes.
        let users = try await withThrowingTaskGroup(of: BenchUser.self) { tasks in
            var connected: [BenchUser] = []
            for index in 0..<total {
                tasks.addTask {
                    let user = BenchUser()
                    user.onEvent { _, time in rosterNews.arrived(at: time) }
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
                        latencies.withLockedValue { $0.record(done - sent) }
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
        let measured = latencies.withLockedValue { $0 }
        let patience = clock.now + .seconds(10)
        while rosterNews.count < rosterNews.expected, clock.now < patience { try await Task.sleep(for: .milliseconds(10)) }
        let everyoneKnown = rosterNews.count >= rosterNews.expected ? rosterNews.last : nil
        var report = Report(scenario: "join-storm")
        report.add("joins", "\(measured.count) of \(total) (\(failures.count) failed), sessions of \(sessionSize)")
        report.add("attempted rate", "\(rate)/s for \(seconds) s")
        report.add("sustained rate", "\(Int(Double(measured.count) / (finished - start).milliseconds * 1000))/s")
        report.add("join p50", milliseconds: measured.p50)
        report.add("join p99", milliseconds: measured.p99)
        report.add("join max", milliseconds: measured.max)
        if let everyoneKnown {
            report.add("everyone known", "\(((everyoneKnown - finished).milliseconds).formatted(decimals: 1)) ms after the last join reply")
        } else {
            report.add("everyone known", "not within 10 s: \(rosterNews.count) of \(rosterNews.expected) roster events arrived")
        }
        report.add("target", "1,000 joins/s with p99 ≤ 5 ms")
        report.print(json: server.json)
    }
}
