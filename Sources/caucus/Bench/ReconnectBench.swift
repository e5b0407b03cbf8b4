import ArgumentParser
import Foundation
import NIOConcurrencyHelpers

/// Drops many users at once mid-breakout while the host keeps broadcasting, then brings them
/// all back with resume: time until all are back, and broadcasts lost (must be 0).
struct ReconnectBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reconnect", abstract: "Mass drop and resume.")

    @OptionGroup var server: ServerOptions
    @Option(help: "Users to drop.") var users = 500
    @Option(help: "Broadcasts sent while they are away (up to the server's replay window, 10,000, each user's resume replays them all).")
    var missed = 5

    func run() async throws {
        let (target, group) = try server.start()
        defer { target.stop() }
        let host = try await joinHost("reconnect", server: target, group: group)
        let received = Locked([Int](repeating: 0, count: users))
        // When the last broadcast reached a user: "caught up" to the frame, not to the polling below.
        let lastBroadcast = Locked<ContinuousClock.Instant?>(nil)
        let participants = try await joinUsers(users, server: target, group: group, session: { _ in "reconnect" }) { user, index in
            user.onEvent { frame, time in
                if frame.contains(#""type":"broadcast""#) {
                    received.withLockedValue { $0[index] += 1 }
                    lastBroadcast.withLockedValue { $0 = Swift.max($0 ?? time, time) }
                }
            }
        }
        try await host.request("addToPreList", #""names":["A","B","C","D","E"]"#)
        try await host.request("commit")
        try await host.request("start", #""autoAssign":true"#)
        let away = Arrivals(expecting: users)
        host.onEvent { frame, time in if frame.contains(#""type":"userReconnecting""#) { away.arrived(at: time) } }
        for user in participants { user.drop() }
        _ = await away.all()
        for index in 0..<missed { try await host.request("broadcast", #""text":"while away \#(index)""#) }
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for user in participants {
                tasks.addTask {
                    try await user.connect(to: target, group: group)
                    _ = try await user.resume()
                }
            }
            try await tasks.waitForAll()
        }
        let resumed = clock.now
        // Replayed events follow each resume reply; wait (up to 10 s, and 1 ms more per missed
        // event) until every one arrived.
        var waited = 0
        while received.withLockedValue({ $0.reduce(0, +) }) < users * missed && waited < 500 + missed / 20 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        let got = received.withLockedValue { $0.reduce(0, +) }
        let caughtUp = got == users * missed ? Swift.max(resumed, lastBroadcast.withLockedValue { $0 } ?? resumed) : clock.now
        let back = (caughtUp - start).milliseconds
        let short = received.withLockedValue { counts in counts.enumerated().filter { $0.element < missed } }
        for (index, count) in short.prefix(5) {
            FileHandle.standardError.write(Data("reconnect: user \(index) (id \(participants[index].userID)) got \(count) of \(missed)\n".utf8))
        }
        var report = Report(scenario: "reconnect")
        report.add("users dropped at once", "\(users) (mid-breakout, in 5 rooms)")
        report.add("all resumed and caught up", milliseconds: back)
        report.add("broadcasts missed while away", "\(users * missed)")
        report.add("lost", "\(users * missed - got)")
        report.add("target", "0 lost")
        report.print(json: server.json)
    }
}
