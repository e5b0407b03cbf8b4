import ArgumentParser
import Foundation
import NIOConcurrencyHelpers

/// Rooms of users chatting at a fixed rate: deliveries per second and delivery latency
/// (sender's send → each recipient's receipt). DESIGN §5: chat p99 ≤ 10 ms at 200,000
/// deliveries/s.
struct ChatBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat", abstract: "Room chat under load.")

    @OptionGroup var server: ServerOptions
    @Option(help: "Subsessions.") var rooms = 50
    @Option(help: "Users per subsession.") var usersPerRoom = 20
    @Option(help: "Messages per user per second.") var rate = 1.0
    @Option(help: "Seconds of chat.") var seconds = 10

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        let epoch = ContinuousClock.now
        let latencies = Locked(Latencies())
        let deliveries = Counter()
        let measuring = Locked(false)
        let host = try await joinHost("chat", server: target, group: group)
        let users = try await joinUsers(rooms * usersPerRoom, server: target, group: group, session: { _ in "chat" }) { user, _ in
            user.onEvent { frame, time in
                guard measuring.withLockedValue({ $0 }), let sent = frame.integer(following: #""text":"t"#) else { return }
                deliveries.add()
                latencies.withLockedValue { $0.record(time - (epoch + .nanoseconds(sent))) }
            }
        }
        let names = (1...rooms).map { "\"Room \($0)\"" }.joined(separator: ",")
        try await host.request("addToPreList", #""names":[\#(names)]"#)
        try await host.request("commit")
        try await host.request("start", #""autoAssign":true"#)
        try await Task.sleep(for: .seconds(1))
        measuring.withLockedValue { $0 = true }
        let clock = ContinuousClock()
        let start = clock.now
        let interval = Duration.seconds(1.0 / rate)
        await withTaskGroup(of: Void.self) { tasks in
            for (index, user) in users.enumerated() {
                tasks.addTask {
                    // Spread the senders over the interval.
                    var next = start + interval * (Double(index) / Double(users.count))
                    while next < start + .seconds(seconds) {
                        try? await clock.sleep(until: next)
                        user.fire("chat", #""text":"t\#((clock.now - epoch).nanoseconds)""#)
                        next += interval
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(1))
        measuring.withLockedValue { $0 = false }
        let elapsed = (clock.now - start).milliseconds / 1000
        let measured = latencies.withLockedValue { $0 }
        var report = Report(scenario: "chat")
        report.add("load", "\(rooms) rooms × \(usersPerRoom) users × \(rate) msg/s for \(seconds) s")
        report.add("deliveries/s", "\(Int(Double(deliveries.count) / elapsed))")
        report.add("delivery p50", milliseconds: measured.p50)
        report.add("delivery p99", milliseconds: measured.p99)
        report.add("delivery max", milliseconds: measured.max)
        if let cpu = target.cpuSeconds { report.add("server CPU", "\(cpu.formatted(decimals: 1)) s in all") }
        report.add("target", "p99 ≤ 10 ms at 200,000 deliveries/s; ≥ 1,000,000 deliveries/s")
        report.print(json: server.json)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
