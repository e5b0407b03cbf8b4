import Caucus
import Foundation
import Testing

/// The times an app shows are `Date`s and `Duration`s, converted from the server's instants at
/// the SDK's boundary. Each is checked against this machine's clock read around the call that
/// made it (the server runs here, on the same clock), with a second's slack either side for
/// the server's millisecond rounding: a wrong scale or epoch misses by far more.
@Suite struct DatesAndDurationsTests {
    static func around(_ start: Date, _ end: Date, plus offset: TimeInterval = 0) -> ClosedRange<Date> {
        start.addingTimeInterval(offset - 1) ... end.addingTimeInterval(offset + 1)
    }

    @Test func joinTimesChatTimesTimerAndCountdownAreDates() async throws {
        let server = try await TestServer.start()
        let beforeJoin = Date()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let (hostJoined, annJoined) = (try host.snapshot.myself.joinedAt, try ann.snapshot.myself.joinedAt)
        #expect(Self.around(beforeJoin, Date()).contains(annJoined))
        #expect(annJoined >= hostJoined, "Ann joined after the host")

        let beforeChat = Date()
        try await host.session.chat.send("hello")
        let (message, sender) = try await ann.log.next("the message") {
            if case .chatMessage(let message, let sender) = $0 { (message, sender) } else { nil }
        }
        #expect(Self.around(beforeChat, Date()).contains(message.sentAt))
        #expect(message.scope == .room(.main) && !message.isDirect)
        let teacher = try host.id
        #expect(message.from == teacher && sender?.name == "Teacher")

        try await host.session.updateSettings(SettingsChange(countdownSeconds: 45, timerWarningSeconds: [120, 30]))
        #expect(try host.snapshot.settings.countdown == .seconds(45))
        #expect(try host.snapshot.settings.timerWarnings == [.seconds(120), .seconds(30)])
        try await #require(host.session.subsessionHelper).addToPreList("Red")
        try await #require(host.session.subsessionHelper).commit()
        let beforeStart = Date()
        try await #require(host.session.subsessionManager).start(durationSeconds: 600)
        let timer = try #require(try host.snapshot.timer)
        #expect(Self.around(beforeStart, Date(), plus: 600).contains(timer.endsAt))
        #expect(timer.pendingWarnings == [.seconds(120), .seconds(30)], "the warnings to come, longest first")
        try await ann.log.next("started") { SeedWalkthroughTests.status($0) == .started ? true : nil }
        #expect(try ann.snapshot.timer == timer, "everyone sees the same end")

        let beforeStop = Date()
        try await #require(host.session.subsessionManager).stop(countdownSeconds: 30)
        let stopsAt = try #require(try host.snapshot.stopsAt)
        #expect(Self.around(beforeStop, Date(), plus: 30).contains(stopsAt))
        await server.stop()
    }

    @Test func aTimerCountsDownFromAnyMoment() {
        let timer = BreakoutTimer(endsAt: Date(timeIntervalSince1970: 1_000), pendingWarnings: [.seconds(60)])
        #expect(timer.remaining(at: Date(timeIntervalSince1970: 910)) == .seconds(90))
        #expect(timer.remaining(at: Date(timeIntervalSince1970: 999.75)) == .milliseconds(250))
        #expect(timer.remaining(at: Date(timeIntervalSince1970: 1_005)) == .zero, "never negative")
    }
}
