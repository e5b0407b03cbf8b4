import ArgumentParser
import Foundation

/// 1 host + 999 users, 50 rooms, start with auto-assign: from the host's start to the last
/// user's "moved" event, and from stop (countdown 0) to the last user back. DESIGN §5.
struct ClassroomBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "classroom", abstract: "Start and stop a 1,000-user breakout.")

    @OptionGroup var server: ServerOptions
    @Option(help: "Users besides the host.") var users = 999
    @Option(help: "Subsessions.") var rooms = 50
    @Option(help: "Start/stop rounds.") var runs = 20

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        let host = try await joinHost("classroom", server: target, group: group)
        let arrivals = ArrivalsBox()
        let participants = try await joinUsers(users, server: target, group: group, session: { _ in "classroom" }) { user, _ in
            user.onEvent { frame, time in
                guard frame.contains(#""type":"statusChanged""#) else { return }
                if frame.contains(#""status":"started""#) || frame.contains(#""status":"stopped""#) { arrivals.current.arrived(at: time) }
            }
        }
        let names = (1...rooms).map { "\"Room \($0)\"" }.joined(separator: ",")
        try await host.request("addToPreList", #""names":[\#(names)]"#)
        try await host.request("commit")
        FileHandle.standardError.write(Data("classroom: \(participants.count) users joined; measuring\n".utf8))
        var firsts: [Double] = []
        var starts: [Double] = []
        var stops: [Double] = []
        for _ in 0..<runs {
            arrivals.reset(expecting: participants.count)
            let started = ContinuousClock.now
            host.fire("start", #""autoAssign":true"#)
            starts.append((await arrivals.current.all() - started).milliseconds)
            firsts.append(((arrivals.current.first ?? started) - started).milliseconds)
            arrivals.reset(expecting: participants.count)
            let stopped = ContinuousClock.now
            host.fire("stop", #""countdownSeconds":0"#)
            stops.append((await arrivals.current.all() - stopped).milliseconds)
        }
        var report = Report(scenario: "classroom")
        report.add("users", "1 host + \(participants.count), \(rooms) rooms, \(runs) runs")
        report.add("start → first moved p50", milliseconds: firsts.percentile(50))
        report.add("start → last moved p50", milliseconds: starts.percentile(50))
        report.add("start → last moved p99", milliseconds: starts.percentile(99))
        report.add("stop → last back p50", milliseconds: stops.percentile(50))
        report.add("stop → last back p99", milliseconds: stops.percentile(99))
        report.add("target", "start → last moved p99 ≤ 50 ms")
        if let rss = target.residentKiB { report.add("server RSS", "\(rss / 1024) MiB") }
        report.print(json: server.json)
    }
}

/// The arrivals of the current run, swapped between runs.
final class ArrivalsBox: Sendable {
    private let box = NIOLockedValueBox(Arrivals(expecting: 0))
    var current: Arrivals { box.withLockedValue { $0 } }
    func reset(expecting count: Int) { box.withLockedValue { $0 = Arrivals(expecting: count) } }
}

import NIOConcurrencyHelpers
