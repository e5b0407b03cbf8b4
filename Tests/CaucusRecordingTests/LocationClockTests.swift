import CaucusMedia
import CaucusRecording
import Testing

/// RTP time onto one location's clock through sender reports: tracks whose reports say they
/// captured something at the same instant land at the same time, across publishers whose wall
/// clocks disagree, whatever their RTP clocks' origins.
@Suite struct LocationClockTests {
    /// NTP seconds in the high 32 bits, the fraction in the low.
    static func ntp(seconds: Double) -> UInt64 {
        let whole = UInt64(seconds)
        return whole << 32 | UInt64((seconds - Double(whole)) * 4_294_967_296)
    }

    static func report(ssrc: UInt32, ntpSeconds: Double, rtp: UInt32) -> RTCPSenderReport {
        RTCPSenderReport(ssrc: ssrc, ntpTimestamp: ntp(seconds: ntpSeconds), rtpTimestamp: rtp, packetCount: 0, octetCount: 0)
    }

    @Test func ntpTimesBecomeMicroseconds() {
        #expect(LocationClock.microseconds(ntp: 0x0000_0001_8000_0000) == 1_500_000)
        #expect(LocationClock.microseconds(ntp: 0xE000_0000_0000_0000) == 3_758_096_384 * 1_000_000)
    }

    /// A clap at the same real instant: publisher A's audio and video, and publisher B, whose
    /// wall clock runs 7.25 s ahead of A's and whose RTP clocks start elsewhere.
    @Test func twoTracksWhoseSenderReportsSayTheyClappedTogetherLandTogether() throws {
        var clock = LocationClock()
        // Real time r (s); the location clock reads r too; reports arrive 40 ms after they are sent.
        let aAudioBase: UInt32 = 4_000_000_000, aVideoBase: UInt32 = 17, bAudioBase: UInt32 = 123_456
        let aWall = 3_900_000_000.0, bWall = aWall + 7.25
        func arrival(_ real: Double) -> Int64 { Int64((real + 0.040) * 1_000_000) }
        for real in [1.0, 2.0] {
            try clock.receive(
                Self.report(ssrc: 1, ntpSeconds: aWall + real, rtp: aAudioBase &+ UInt32(real * 48_000)),
                publisher: "a", clockRate: 48_000, arrival: arrival(real))
            try clock.receive(
                Self.report(ssrc: 2, ntpSeconds: aWall + real + 0.5, rtp: aVideoBase &+ UInt32((real + 0.5) * 90_000)),
                publisher: "a", clockRate: 90_000, arrival: arrival(real + 0.5))
            try clock.receive(
                Self.report(ssrc: 3, ntpSeconds: bWall + real + 0.2, rtp: bAudioBase &+ UInt32((real + 0.2) * 48_000)),
                publisher: "b", clockRate: 48_000, arrival: arrival(real + 0.2))
        }
        let clap = 10.0
        let aAudio = try #require(clock.time(ofRTP: aAudioBase &+ UInt32(clap * 48_000), ssrc: 1))
        let aVideo = try #require(clock.time(ofRTP: aVideoBase &+ UInt32(clap * 90_000), ssrc: 2))
        let bAudio = try #require(clock.time(ofRTP: bAudioBase &+ UInt32(clap * 48_000), ssrc: 3))
        // The audio base wrapped past 2^32 on the way: still continuous.
        #expect(abs(aAudio - aVideo) <= 5, "\(aAudio) \(aVideo)")
        #expect(abs(aAudio - bAudio) <= 5, "\(aAudio) \(bAudio)")
        // On the location's clock: the real time plus the (unknowable) one-way delay.
        #expect(abs(aAudio - Int64((clap + 0.040) * 1_000_000)) <= 5, "within microseconds of rounding")
    }

    /// A report held up in the network says the sender's clock is further behind than it is;
    /// the smallest offset of the window wins, and the slow report changes nothing.
    @Test func aDelayedReportDoesNotMoveTheMapping() throws {
        var clock = LocationClock()
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_000, rtp: 0), publisher: "a", clockRate: 48_000, arrival: 1_000_000)
        let before = clock.time(ofRTP: 48_000 * 3, ssrc: 1)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_001, rtp: 48_000), publisher: "a", clockRate: 48_000, arrival: 2_300_000)
        #expect(clock.time(ofRTP: 48_000 * 3, ssrc: 1) == before)
        #expect(before == 4_000_000)
    }

    /// A report whose sender read its wall clock 30 ms after the instant its RTP timestamp
    /// names (as aiortc does, after encoding and sending the packet) moves nothing: the track
    /// keeps the earlier, earliest-placing report.
    @Test func aLateStampedReportDoesNotMoveTheTrack() throws {
        var clock = LocationClock()
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_000, rtp: 0), publisher: "a", clockRate: 48_000, arrival: 1_000_000)
        #expect(clock.time(ofRTP: 48_000 * 3, ssrc: 1) == 4_000_000)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_001.030, rtp: 48_000), publisher: "a", clockRate: 48_000, arrival: 2_040_000)
        #expect(clock.time(ofRTP: 48_000 * 3, ssrc: 1) == 4_000_000)
        // The next report on time is as good as the first.
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_002, rtp: 96_000), publisher: "a", clockRate: 48_000, arrival: 3_000_000)
        #expect(clock.time(ofRTP: 48_000 * 3, ssrc: 1) == 4_000_000)
    }

    /// A sender whose RTP clock stood still for a second (a paused source) is followed at once:
    /// a report that far from the earlier ones is a new mapping, not a late one.
    @Test func aJumpOfTheSendersMappingIsFollowedAtOnce() throws {
        var clock = LocationClock()
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_000, rtp: 0), publisher: "a", clockRate: 48_000, arrival: 1_000_000)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_002, rtp: 48_000), publisher: "a", clockRate: 48_000, arrival: 3_000_000)
        #expect(clock.time(ofRTP: 48_000, ssrc: 1) == 3_000_000)
    }

    /// A sender's clock that drifts from the location's is followed once old reports leave the window.
    @Test func theOffsetFollowsTheWindow() throws {
        var clock = LocationClock(offsetWindow: 2)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 100, rtp: 0), publisher: "a", clockRate: 1_000, arrival: 0)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 101, rtp: 1_000), publisher: "a", clockRate: 1_000, arrival: 1_010_000)
        #expect(clock.time(ofRTP: 1_000, ssrc: 1) == 1_000_000)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 102, rtp: 2_000), publisher: "a", clockRate: 1_000, arrival: 2_010_000)
        #expect(clock.time(ofRTP: 1_000, ssrc: 1) == 1_010_000)
    }

    /// A publisher that left is forgotten: its tracks map no more, the others' stay, and when it
    /// comes back with its wall clock set 10 s back meanwhile, its first report places it
    /// (the smallest of its old offsets would have put it 12 s early).
    @Test func aPublisherThatLeftIsForgottenAndPlacedAfreshWhenItComesBack() throws {
        var clock = LocationClock()
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 5_000, rtp: 0), publisher: "a", clockRate: 48_000, arrival: 1_000_000)
        try clock.receive(Self.report(ssrc: 2, ntpSeconds: 800, rtp: 0), publisher: "b", clockRate: 48_000, arrival: 1_500_000)
        let other = clock.time(ofRTP: 48_000, ssrc: 2)
        clock.forget(publisher: "a")
        #expect(!clock.isMapped(1) && clock.time(ofRTP: 48_000, ssrc: 1) == nil)
        #expect(clock.isMapped(2) && clock.time(ofRTP: 48_000, ssrc: 2) == other && other == 2_500_000)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 4_990, rtp: 96_000), publisher: "a", clockRate: 48_000, arrival: 3_000_000)
        #expect(clock.time(ofRTP: 96_000, ssrc: 1) == 3_000_000)
        clock.forget(publisher: "nobody")
        #expect(clock.isMapped(1) && clock.isMapped(2))
    }

    @Test func nothingMapsBeforeAReportAndBadReportsChangeNothing() throws {
        var clock = LocationClock()
        #expect(clock.time(ofRTP: 1, ssrc: 9) == nil && !clock.isMapped(9))
        #expect(throws: LocationClockError.invalidClockRate(0)) {
            try clock.receive(Self.report(ssrc: 9, ntpSeconds: 1, rtp: 0), publisher: "a", clockRate: 0, arrival: 0)
        }
        #expect(throws: LocationClockError.noWallClock(ssrc: 9)) {
            try clock.receive(
                RTCPSenderReport(ssrc: 9, ntpTimestamp: 0, rtpTimestamp: 0, packetCount: 0, octetCount: 0),
                publisher: "a", clockRate: 48_000, arrival: 0)
        }
        #expect(!clock.isMapped(9))
    }

    /// A track's mapping, which a recorder keeps between reports instead of the whole clock,
    /// places every timestamp where the clock does (across the 32-bit wrap), and is what the
    /// clock holds after each change: none before a report, a new one after the next report of
    /// the track's publisher (whose offset may move every track of it), none once forgotten.
    @Test func aTracksMappingPlacesItsTimestampsAsTheClockDoes() throws {
        var clock = LocationClock()
        #expect(clock.mapping(of: 1) == nil)
        try clock.receive(Self.report(ssrc: 1, ntpSeconds: 1_000, rtp: 4_294_000_000), publisher: "a", clockRate: 48_000, arrival: 5_000_000)
        try clock.receive(Self.report(ssrc: 2, ntpSeconds: 1_000.5, rtp: 90), publisher: "a", clockRate: 90_000, arrival: 5_600_000)
        let audio = try #require(clock.mapping(of: 1))
        #expect(audio.ssrc == 1)
        for rtp: UInt32 in [0, 4_293_000_000, 4_294_000_000, 4_294_967_295, 1_000_000, 2_000_000_000] {
            #expect(audio.time(ofRTP: rtp) == clock.time(ofRTP: rtp, ssrc: 1), "RTP \(rtp)")
        }
        #expect(audio.time(ofRTP: 4_294_000_000 &+ 48_000) == 6_000_000, "a second after the report, which arrived with no delay")
        // The video's report arrived 100 ms late: the publisher's offset stays the audio's.
        #expect(clock.mapping(of: 1) == audio)
        // A report that arrived sooner moves the publisher's offset, for both tracks.
        let video = try #require(clock.mapping(of: 2))
        try clock.receive(Self.report(ssrc: 2, ntpSeconds: 1_001.5, rtp: 90 + 90_000), publisher: "a", clockRate: 90_000, arrival: 6_480_000)
        #expect(clock.mapping(of: 1) != audio && clock.mapping(of: 2) != video)
        #expect(clock.mapping(of: 1)?.time(ofRTP: 4_294_000_000) == 4_980_000)
        clock.forget(publisher: "a")
        #expect(clock.mapping(of: 1) == nil && clock.mapping(of: 2) == nil)
    }
}
