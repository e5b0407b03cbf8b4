import Caucus
import CaucusCore
import Foundation
import Testing

/// A breakout timer through the SDK: started with a duration, extended, warned about, and
/// run out, after which everyone is back in the main session.
@Suite struct TimerTests {
    @Test func aTimerWarnsBeforeItsEndThenStopsAndEveryoneIsBack() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", session: "Timed", role: .host)
        let ann = try await server.client("Ann", session: "Timed")
        let ben = try await server.client("Ben", session: "Timed")
        try await host.session.updateSettings(SettingsChange(countdownSeconds: 0, timerWarningSeconds: [1]))
        #expect(try host.snapshot.settings.timerWarningSeconds == [1], "the caller's snapshot is right when the call returns")
        try await ann.log.next("the settings") { if case .settingsChanged(let settings) = $0 { settings.countdownSeconds == 0 ? true : nil } else { nil } }
        #expect(try ann.snapshot.settings.timerWarningSeconds == [1], "and everyone's once the event arrives")
        try await #require(host.session.subsessionHelper).addToPreList("Only")
        try await #require(host.session.subsessionHelper).commit()
        let manager = try #require(host.session.subsessionManager)

        try await manager.start(durationSeconds: 2, autoAssign: true)
        let first = try #require(try host.snapshot.timer)
        #expect(first.pendingWarnings == [.seconds(1)])
        for participant in [ann, ben] {
            let room = try await participant.log.next("moved in") { if case .moved(let room?) = $0 { room.name } else { nil } }
            #expect(room == "Only")
        }
        try await manager.extendTimer(bySeconds: 1)
        let extended = try #require(try host.snapshot.timer)
        #expect(abs(extended.endsAt.timeIntervalSince(first.endsAt) - 1) < 0.0005, "one second later, to the millisecond")
        try await ann.log.next("the extension") {
            if case .timerChanged(let timer?) = $0, timer.endsAt == extended.endsAt { true } else { nil }
        }

        for client in [host, ann, ben] {
            let warning = try await client.log.next("the warning") { if case .timerWarning(let remaining) = $0 { remaining } else { nil } }
            #expect(warning == .seconds(1))
            try await client.log.next("the stop") { SeedWalkthroughTests.status($0) == .stopped ? true : nil }
            let snapshot = try client.snapshot
            #expect(snapshot.status == .stopped)
            #expect(snapshot.timer == nil)
            #expect(snapshot.users.allSatisfy { $0.location == .main })
        }
        // In order: started, the warning, then stopped.
        let order = ann.log.all.compactMap { event -> String? in
            switch event {
            case .subsessionStatusChanged(let status, _) where status != .committed: status.rawValue
            case .timerWarning: "warning"
            default: nil
            }
        }
        #expect(order == ["started", "warning", "stopped"])
        await server.stop()
    }
}
