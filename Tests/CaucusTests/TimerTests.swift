import Caucus
import CaucusCore
import Foundation
import Testing

/// A breakout timer through the SDK: started with a duration, extended, warned about, and
/// run out, after which everyone is back in the main session.
///
/// Ten minutes of breakout in a fraction of a second: the server runs on a clock the test moves
/// forward (`SkippingClock`), and the session's timers wait on that clock. Were they to wait
/// on real time, no warning would come within the events' 15 s.
@Suite struct TimerTests {
    @Test func aTimerWarnsBeforeItsEndThenStopsAndEveryoneIsBack() async throws {
        let clock = SkippingClock()
        let server = try await TestServer.start(clock: clock.serverClock)
        let host = try await server.client("Teacher", session: "Timed", role: .host)
        let ann = try await server.client("Ann", session: "Timed")
        let ben = try await server.client("Ben", session: "Timed")
        try await host.session.updateSettings(SettingsChange(countdownSeconds: 0, timerWarningSeconds: [120, 30]))
        #expect(try host.snapshot.settings.timerWarningSeconds == [120, 30], "the caller's snapshot is right when the call returns")
        try await ann.log.next("the settings") { if case .settingsChanged(let settings) = $0 { settings.countdownSeconds == 0 ? true : nil } else { nil } }
        #expect(try ann.snapshot.settings.timerWarningSeconds == [120, 30], "and everyone's once the event arrives")
        try await #require(host.session.subsessionHelper).addToPreList("Only")
        try await #require(host.session.subsessionHelper).commit()
        let manager = try #require(host.session.subsessionManager)

        try await manager.start(durationSeconds: 600, autoAssign: true)
        let first = try #require(try host.snapshot.timer)
        #expect(Set(first.pendingWarnings) == [.seconds(120), .seconds(30)])
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

        // 601 s in all: the first warning 120 s before the end, the second 30 s before it.
        clock.skip(.seconds(481))
        for client in [host, ann, ben] {
            let warning = try await client.log.next("the first warning") { if case .timerWarning(let remaining) = $0 { remaining } else { nil } }
            #expect(warning == .seconds(120))
            #expect(try client.snapshot.status == .started, "still running after the first warning")
        }
        clock.skip(.seconds(90))
        for client in [host, ann, ben] {
            let warning = try await client.log.next("the second warning") { if case .timerWarning(let remaining) = $0 { remaining } else { nil } }
            #expect(warning == .seconds(30))
        }
        clock.skip(.seconds(30))
        for client in [host, ann, ben] {
            try await client.log.next("the stop") { SeedWalkthroughTests.status($0) == .stopped ? true : nil }
            let snapshot = try client.snapshot
            #expect(snapshot.status == .stopped)
            #expect(snapshot.timer == nil)
            #expect(snapshot.users.allSatisfy { $0.location == .main })
        }
        // In order: started, the warnings, then stopped.
        let order = ann.log.all.compactMap { event -> String? in
            switch event {
            case .subsessionStatusChanged(let status, _) where status != .committed: status.rawValue
            case .timerWarning: "warning"
            default: nil
            }
        }
        #expect(order == ["started", "warning", "warning", "stopped"])
        await server.stop()
    }

    /// The standard countdown (60 s) after a stop: everyone stays in their room, told the time
    /// it ends, until it ends, and is back in the main session then.
    @Test func aStopWithTheStandardCountdownBringsEveryoneBackWhenItEndsNotBefore() async throws {
        let clock = SkippingClock()
        let server = try await TestServer.start(clock: clock.serverClock)
        let host = try await server.client("Teacher", session: "Counted", role: .host)
        let ann = try await server.client("Ann", session: "Counted")
        #expect(try host.snapshot.settings.countdown == .seconds(60), "the standard countdown")
        try await #require(host.session.subsessionHelper).addToPreList("Only")
        try await #require(host.session.subsessionHelper).commit()
        let manager = try #require(host.session.subsessionManager)
        try await manager.start(autoAssign: true)
        try await ann.log.next("moved in") { if case .moved(let room?) = $0 { room.name } else { nil } }

        let beforeStop = clock.now().milliseconds
        try await manager.stop()
        let afterStop = clock.now().milliseconds
        let stopsAt = try #require(try host.snapshot.stopsAt)
        let announced = Int64((stopsAt.timeIntervalSince1970 * 1000).rounded())
        #expect((beforeStop + 60_000...afterStop + 60_000).contains(announced), "ends 60 s after the stop")
        try await ann.log.next("stopping") { SeedWalkthroughTests.status($0) == .stopping ? true : nil }
        #expect(try ann.snapshot.stopsAt == stopsAt, "everyone is told when it ends")

        // 1.5 s before the end the server announced, whatever time the steps before took.
        let end = Instant(milliseconds: announced)
        clock.skip(to: Instant(milliseconds: end.milliseconds - 1_500))
        // Time for a countdown wrongly over by now to end (a wait looks at the clock every 10 ms).
        try await Task.sleep(for: .milliseconds(50))
        try await manager.broadcast("almost over")
        try await ann.log.next("the broadcast") { if case .broadcast = $0 { true } else { nil } }
        #expect(try ann.snapshot.status == .stopping, "still counting down 1.5 s before the end")
        #expect(try ann.snapshot.location != .main, "still in the room 1.5 s before the end")

        clock.skip(to: end)
        for client in [host, ann] {
            // Due at once: a countdown that ended seconds late would not come within these 5 s.
            try await client.log.next(seconds: 5, "the stop") { SeedWalkthroughTests.status($0) == .stopped ? true : nil }
            #expect(try client.snapshot.users.allSatisfy { $0.location == .main })
        }
        await server.stop()
    }
}
