import CaucusMedia
import CaucusSFU
import Testing

/// Issue 23, item 3: the speaker ranking as a pure state machine, levels and time as inputs,
/// the hysteresis edges included.
@Suite struct SpeakerRankingTests {
    /// One place, no smoothing (each level counts as it comes), no interval between publications:
    /// the margin and the dwell alone decide.
    static func exact(places: Int = 1, margin: Double = 6, dwell: Duration = .milliseconds(150), interval: Duration = .zero)
        -> SpeakerRanking
    {
        SpeakerRanking(configuration: .init(
            places: places, speakingLevel: 60, margin: margin, dwell: dwell, smoothing: .nanoseconds(1),
            staleAfter: .milliseconds(500), minimumInterval: interval))
    }

    /// Feeds each publisher's level every 20 ms from `from` to `to`, evaluating every 50 ms as
    /// the media loop does; returns each published order with its time.
    static func run(
        _ ranking: inout SpeakerRanking, _ levels: [Int: UInt8], from: Duration, to: Duration
    ) -> [(at: Duration, order: SpeakerOrder)] {
        var published: [(Duration, SpeakerOrder)] = []
        var now = from
        while now <= to {
            for (publisher, level) in levels.sorted(by: { $0.key < $1.key }) { ranking.hear(publisher, level: level, at: now) }
            if (now - from) / .milliseconds(50) == ((now - from) / .milliseconds(50)).rounded(),
                let order = ranking.evaluate(at: now)
            {
                published.append((now, order))
            }
            now += .milliseconds(10)
        }
        return published
    }

    @Test func aFreePlaceGoesAtOnceToTheLoudestSpeakerNeverToSilence() {
        var ranking = Self.exact(places: 2)
        ranking.hear(1, level: 127, at: .zero)
        ranking.hear(2, level: 40, at: .zero)
        ranking.hear(3, level: 30, at: .zero)
        ranking.hear(4, level: 90, at: .zero)
        let order = ranking.evaluate(at: .zero)
        #expect(order?.audio == [3, 2], "the two speakers, loudest first; silence (127) and noise (90) hold nothing")
        #expect(Array(ranking.speakers) == [3, 2])
        #expect(ranking.evaluate(at: .milliseconds(50)) == nil, "nothing changed, nothing published")
    }

    /// Places are all held; one holder falls silent and another, silent until now, speaks:
    /// no place changes hands, yet the order is published with the speaker first once the
    /// first has been silent for the hang (a subscriber with fewer audio slots than places
    /// would otherwise never hear the new speaker). Similar voices that keep speaking publish
    /// nothing more.
    @Test func aHolderWhoStartsSpeakingComesFirstWithoutAPlaceChangingHands() {
        var ranking = Self.exact(places: 2)
        _ = Self.run(&ranking, [1: 30, 2: 40], from: .zero, to: .milliseconds(100))
        #expect(ranking.order.audio == [1, 2])
        // 1 stops, 2 speaks loudly: 2 first once 1's hang is over.
        let published = Self.run(&ranking, [1: 127, 2: 20], from: .milliseconds(110), to: .seconds(3))
        #expect(published.map(\.order.audio) == [[2, 1]], "\(published)")
        let turned = published.first?.at
        #expect(turned.map { $0 - .milliseconds(100) >= ranking.configuration.hang } == true, "not before 1's hang")
        #expect(Self.run(&ranking, [1: 127, 2: 20], from: .milliseconds(3010), to: .seconds(6)).isEmpty)
    }

    @Test func aNewcomerLouderByLessThanTheMarginNeverTakesThePlace() {
        var ranking = Self.exact()
        _ = Self.run(&ranking, [1: 30], from: .zero, to: .zero)
        #expect(Array(ranking.speakers) == [1])
        // 5 dB louder for ten seconds: similar voices do not flap.
        let published = Self.run(&ranking, [1: 30, 2: 25], from: .milliseconds(10), to: .seconds(10))
        #expect(published.isEmpty)
        #expect(Array(ranking.speakers) == [1])
    }

    @Test func aNewcomerLouderByTheMarginTakesThePlaceAfterTheDwellNotBefore() {
        var ranking = Self.exact()
        _ = Self.run(&ranking, [1: 30], from: .zero, to: .zero)
        // Exactly 6 dB louder from 100 ms: louder since the evaluation at 100 ms.
        var published = Self.run(&ranking, [1: 30, 2: 24], from: .milliseconds(100), to: .milliseconds(200))
        #expect(published.isEmpty, "50 ms louder of 150 ms")
        published = Self.run(&ranking, [1: 30, 2: 24], from: .milliseconds(210), to: .milliseconds(240))
        #expect(published.isEmpty)
        published = Self.run(&ranking, [1: 30, 2: 24], from: .milliseconds(250), to: .milliseconds(250))
        #expect(published.map(\.at) == [.milliseconds(250)], "at exactly the dwell")
        #expect(published.first?.order.audio == [2, 1], "the newcomer on top, the one it replaced first among the rest")
    }

    @Test func aDipBelowTheMarginStartsTheDwellOver() {
        var ranking = Self.exact()
        _ = Self.run(&ranking, [1: 30], from: .zero, to: .zero)
        _ = Self.run(&ranking, [1: 30, 2: 20], from: .milliseconds(50), to: .milliseconds(150))
        // One evaluation only 4 dB louder: the 100 ms already spent count for nothing.
        _ = Self.run(&ranking, [1: 30, 2: 26], from: .milliseconds(200), to: .milliseconds(200))
        var published = Self.run(&ranking, [1: 30, 2: 20], from: .milliseconds(250), to: .milliseconds(350))
        #expect(published.isEmpty, "louder again since 250 ms: 100 ms of 150")
        published = Self.run(&ranking, [1: 30, 2: 20], from: .milliseconds(400), to: .milliseconds(400))
        #expect(published.map(\.at) == [.milliseconds(400)])
    }

    @Test func aHolderWhoFallsSilentOrStopsSendingIsReplaced() {
        var ranking = Self.exact()
        _ = Self.run(&ranking, [1: 30], from: .zero, to: .zero)
        // 1 sends nothing more (muted, or DTX); 2 speaks softly. Until 1's level is stale, 2
        // is not louder by the margin; then it is, for the dwell.
        let published = Self.run(&ranking, [2: 50], from: .milliseconds(50), to: .seconds(2))
        #expect(published.count == 1)
        #expect(published.first.map { $0.at > .milliseconds(500) && $0.at <= .milliseconds(700) } == true, "\(published.map(\.at))")
        #expect(Array(ranking.speakers) == [2])
    }

    /// A holder who has not spoken for the hang is no voice to compete with: the next speaker
    /// takes its place at the first evaluation, without the dwell, and without having to be
    /// louder by the margin than the holder's background noise. Within the hang the dwell holds.
    @Test func aHolderSilentForTheHangGivesItsPlaceToASpeakerAtOnce() {
        var ranking = Self.exact()
        _ = Self.run(&ranking, [1: 30], from: .zero, to: .zero)
        // 1 stops talking; its microphone still sends its room's noise (62: not speaking).
        // 2, 4 dB louder than that noise, speaks at 500 ms: within 1's hang, and under the
        // margin, so nothing changes hands…
        _ = Self.run(&ranking, [1: 62], from: .milliseconds(10), to: .milliseconds(490))
        var published = Self.run(&ranking, [1: 62, 2: 58], from: .milliseconds(500), to: .milliseconds(950))
        #expect(published.isEmpty, "\(published.map(\.at))")
        // …until 1 has been silent for the hang (its last loud moment at 0 ms).
        published = Self.run(&ranking, [1: 62, 2: 58], from: .seconds(1), to: .milliseconds(1_100))
        #expect(published.map(\.at) == [.milliseconds(1_050)], "the first evaluation after the hang (at 1 s, 1 still counts as speaking)")
        #expect(published.first?.order.audio == [2, 1])

        // A loud speaker after a long silence: at the first evaluation, not after the dwell.
        var quiet = Self.exact()
        _ = Self.run(&quiet, [1: 30], from: .zero, to: .zero)
        _ = Self.run(&quiet, [1: 127], from: .milliseconds(10), to: .milliseconds(1_490))
        published = Self.run(&quiet, [1: 127, 2: 30], from: .milliseconds(1_500), to: .milliseconds(1_700))
        #expect(published.map(\.at) == [.milliseconds(1_500)])
        #expect(Array(quiet.speakers) == [2])
    }

    @Test func atMostOnePublicationPerInterval() {
        var ranking = Self.exact(places: 1, dwell: .zero, interval: .milliseconds(500))
        _ = Self.run(&ranking, [1: 40], from: .zero, to: .zero)
        var published = Self.run(&ranking, [1: 40, 2: 20], from: .milliseconds(50), to: .milliseconds(50))
        #expect(published.isEmpty, "a change due 50 ms after the last publication waits")
        published = Self.run(&ranking, [1: 40, 2: 20], from: .milliseconds(100), to: .milliseconds(600))
        #expect(published.map(\.at) == [.milliseconds(500)], "and goes out once the interval is over")
        #expect(Array(ranking.speakers) == [2])
        // Straight back: again only after the interval.
        published = Self.run(&ranking, [1: 10, 2: 40], from: .milliseconds(650), to: .milliseconds(1_100))
        #expect(published.map(\.at) == [.milliseconds(1_000)])
    }

    @Test func videoFollowsTheMostRecentSpeakerAudioTheLoudest() {
        var ranking = Self.exact(places: 3, dwell: .zero)
        _ = Self.run(&ranking, [1: 20, 2: 30], from: .zero, to: .zero)
        _ = Self.run(&ranking, [2: 30], from: .milliseconds(50), to: .milliseconds(600))
        // 2 falls silent as 3 starts.
        let published = Self.run(&ranking, [2: 127, 3: 50], from: .milliseconds(650), to: .milliseconds(650))
        #expect(published.count == 1)
        let order = published.last?.order
        #expect(order?.audio == [3, 1, 2], "loudest first: 3 speaks, 1 (stale) and 2 (silent) are at silence")
        #expect(order?.video == [3, 2, 1], "3 speaks now, 2 spoke until 600 ms, 1 only at 0")
    }

    @Test func aForgottenHolderLeavesAtTheNextPublication() {
        var ranking = Self.exact(places: 2)
        _ = Self.run(&ranking, [1: 20, 2: 30, 3: 40], from: .zero, to: .zero)
        #expect(Array(ranking.speakers) == [1, 2])
        ranking.forget(1)
        let published = Self.run(&ranking, [2: 30, 3: 40], from: .milliseconds(50), to: .milliseconds(50))
        #expect(published.first?.order.audio == [2, 3])
        #expect(!(published.first?.order.audio.contains(1) ?? true))
    }

    /// Smoothing: one loud packet among quiet ones does not make a speaker.
    @Test func oneLoudPacketIsSmoothedAway() {
        var ranking = SpeakerRanking()
        ranking.hear(1, level: 90, at: .zero)
        ranking.hear(1, level: 0, at: .milliseconds(20))
        ranking.hear(1, level: 90, at: .milliseconds(40))
        #expect(ranking.level(of: 1, at: .milliseconds(40)) > 60)
        #expect(ranking.evaluate(at: .milliseconds(50)) == nil)
    }
}
