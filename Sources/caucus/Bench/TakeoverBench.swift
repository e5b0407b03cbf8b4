import ArgumentParser
import Foundation
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Two nodes on one PostgreSQL database; a session of `users` users and `events` events on the
/// first; the first is killed (SIGKILL); every user resumes through the second, which takes
/// the session over once its lease expires. Measures the takeover itself (lease, reading the
/// snapshot and the log, rebuilding: the second node's own timer) and how long until every
/// user was back.
struct TakeoverBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "takeover", abstract: "A node dies: its session moves to another node.")

    @Option(help: "The PostgreSQL database both nodes share (postgres://user@host:port/database), with no live session: the surviving node would take those over too.")
    var store: String
    @Option(help: "Users in the session.") var users = 1000
    @Option(help: "Events in the session's log before the kill (private chat messages, after the joins).") var events = 100_000
    @Option(help: "Seconds a lease lasts unrenewed.") var leaseSeconds = 2
    @Option(help: "Event-loop threads for the simulated users.") var clientThreads = 1
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let folder = try ServerUnderTest.freshFolder()
        // Runs last, after both nodes have stopped (defers run in reverse).
        defer { ServerUnderTest.removeFolder(folder) }
        let ports = try FreeLoopbackPorts.take(2)
        let nodes = try ports.map { port in
            try ServerUnderTest(
                folder: folder,
                arguments: ["--store", store, "--port", "\(port)", "--node-url", "http://127.0.0.1:\(port)", "--lease-seconds", "\(leaseSeconds)"])
        }
        defer { nodes.forEach { $0.stop() } }
        let (owner, survivor) = (nodes[0], nodes[1])
        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let session = "Takeover \(UUID().uuidString.prefix(8))"
        let host = try await joinHost(session, server: owner, group: group)
        let participants = try await joinUsers(users, server: owner, group: group, session: { _ in session })
        let lastSeq = try await writeEvents(participants)

        let clock = ContinuousClock()
        let killed = clock.now
        owner.kill()
        let everyone = [host] + participants
        let backAt = Locked([ContinuousClock.Instant]())
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for user in everyone {
                tasks.addTask {
                    // Refused (sent to the dead node) until the lease expires; then taken over.
                    while true {
                        do {
                            try await user.connect(to: survivor, group: group)
                            _ = try await user.resume()
                            backAt.withLockedValue { $0.append(clock.now) }
                            return
                        } catch {
                            user.drop()
                            // The SDK's first backoff.
                            try await Task.sleep(for: .milliseconds(250))
                        }
                    }
                }
            }
            try await tasks.waitForAll()
        }
        let times = backAt.withLockedValue { $0 }.sorted()
        let takeover = try await Self.takeoverSeconds(port: survivor.port)
        // Ended, so that it is not left live in the database for the next run's nodes.
        try await host.request("leave", #""endSession":true"#)
        var report = Report(scenario: "takeover")
        report.add("session", "\(everyone.count) users, \(lastSeq) events (private chat)")
        report.add("lease", "\(leaseSeconds) s")
        report.add("takeover (lease, read, rebuild)", milliseconds: takeover * 1000)
        report.add("kill to first resume", milliseconds: Double((times.first! - killed).milliseconds))
        report.add("first to last resume", milliseconds: Double((times.last! - times.first!).milliseconds))
        report.add("kill to all resumed", milliseconds: Double((times.last! - killed).milliseconds))
        report.print(json: json)
    }

    /// Private chat messages, each user to the next, until the log holds `events` events;
    /// returns the last seq.
    private func writeEvents(_ participants: [BenchUser]) async throws -> Int {
        let reached = Locked(0)
        let perUser = max(0, (events - participants.count) / participants.count)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, user) in participants.enumerated() {
                let to = participants[(index + 1) % participants.count].userID
                tasks.addTask {
                    for message in 0..<perUser {
                        let reply = try await user.request("chat", #""text":"message \#(message)","to":\#(to)"#)
                        if let seq = reply.integer(after: "seq") { reached.withLockedValue { $0 = max($0, seq) } }
                    }
                }
            }
            try await tasks.waitForAll()
        }
        return reached.withLockedValue { $0 }
    }

    /// The survivor's own measure of its takeover: `caucus_takeover_duration_seconds`.
    private static func takeoverSeconds(port: Int) async throws -> Double {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let text = String(decoding: data, as: UTF8.self)
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
                .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        }
        let count = value("caucus_takeover_duration_seconds_count")
        guard let sum = value("caucus_takeover_duration_seconds_sum"), count == 1 else {
            throw BenchError("the surviving node reports \(count.map { "\(Int($0))" } ?? "no") takeovers, not one")
        }
        return sum
    }
}
