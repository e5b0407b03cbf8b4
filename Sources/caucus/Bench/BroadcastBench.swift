import ArgumentParser
import Foundation

/// One broadcast to every user of a 1,000-user session: time until the last one has it.
struct BroadcastBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "broadcast", abstract: "One message to a whole session.")

    @OptionGroup var server: ServerOptions
    @Option(help: "Users besides the host.") var users = 999
    @Option(help: "Broadcasts.") var runs = 20

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        let host = try await joinHost("broadcast", server: target, group: group)
        let arrivals = ArrivalsBox()
        let participants = try await joinUsers(users, server: target, group: group, session: { _ in "broadcast" }) { user, _ in
            user.onEvent { frame, time in if frame.contains(#""type":"broadcast""#) { arrivals.current.arrived(at: time) } }
        }
        try await host.request("addToPreList", #""names":["Room"]"#)
        try await host.request("commit")
        try await host.request("start")
        var lasts: [Double] = []
        for run in 0..<runs {
            arrivals.reset(expecting: participants.count)
            let sent = ContinuousClock.now
            host.fire("broadcast", #""text":"announcement \#(run)""#)
            lasts.append((await arrivals.current.all() - sent).milliseconds)
        }
        var report = Report(scenario: "broadcast")
        report.add("users", "1 host + \(participants.count), \(runs) broadcasts")
        report.add("send → last received p50", milliseconds: lasts.percentile(50))
        report.add("send → last received p99", milliseconds: lasts.percentile(99))
        report.add("deliveries/s while fanning out", "\(Int(Double(participants.count) / (lasts.percentile(50) / 1000)))")
        report.print(json: server.json)
    }
}
