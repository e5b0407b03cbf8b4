import ArgumentParser
import Foundation

/// Server memory per connected, idle user, from the server process's resident memory.
/// DESIGN §5: ≤ 8 KiB per idle user at 10,000 users.
struct IdleBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "idle", abstract: "Memory per connected idle user.")

    @OptionGroup var server: ServerOptions
    @Option(parsing: .upToNextOption, help: "User counts to measure at.") var steps: [Int] = [1_000, 5_000, 10_000]
    @Option(help: "Users per session.") var sessionSize = 100

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        try await Task.sleep(for: .seconds(1))
        guard let baseline = target.residentKiB else { throw BenchError("idle needs a server it started (no --url)") }
        var report = Report(scenario: "idle")
        report.add("baseline RSS", "\(baseline / 1024) MiB")
        var users: [BenchUser] = []
        for step in steps.sorted() {
            let offset = users.count
            users += try await joinUsers(step - offset, server: target, group: group) { index in "idle-\((index + offset) / sessionSize)" }
            try await Task.sleep(for: .seconds(2))
            let rss = target.residentKiB ?? 0
            report.add("\(step) users", "RSS \(rss / 1024) MiB, \(((Double(rss - baseline) / Double(step)) ).formatted(decimals: 2)) KiB per user")
        }
        report.add("target", "≤ 8 KiB per idle user at 10,000")
        report.print(json: server.json)
        withExtendedLifetime(users) {}
    }
}
