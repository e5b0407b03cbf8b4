import Testing

@testable import CaucusRecording

/// Where a file's frames go: the sender's spacing while the clock jitters, slewed toward the
/// clock when it disagrees by more, stepped past a jump, and always strictly increasing.
@Suite struct FrameTimingTests {
    /// 10 fps video: 9,000 ticks of 90 kHz per frame.
    static let frame: UInt32 = 9_000
    static let origin: Int64 = 5_000_000

    /// Writes frames `0..<count` (RTP `first + k × frame`), each mapped by the clock to its
    /// exact time plus `shift(k)` µs; returns their times in ms.
    static func write(
        _ count: Int, first: UInt32 = 0, shift: (Int) -> Int64, timing: inout FrameTiming
    ) -> [Int64] {
        (0..<count).map { index in
            let rtp = first &+ UInt32(index) &* frame
            return timing.milliseconds(ofRTP: rtp, mapped: origin + Int64(index) * 100_000 + shift(index))
        }
    }

    static func intervals(_ times: [Int64]) -> [Int64] {
        zip(times.dropFirst(), times).map { $0 - $1 }
    }

    /// A publisher whose timestamps and sender reports run on by 2^31 − 1 ticks a frame (about
    /// 6.6 hours of video each), clock and file agreeing, so no frame jumps back and no file
    /// ends: past 9.2 × 10^12 ticks (4,295 frames) ticks × 1,000,000 would leave 64 bits.
    @Test func timestampsThatRunOnByBillionsOfTicksAFrameNeitherTrapNorGoBack() {
        let step: UInt32 = 0x7FFF_FFFF
        let origin: Int64 = -4_294_967_295_000_000
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: origin)
        var last: Int64 = -1
        for index in 0..<6_000 {
            let rtp = UInt32(truncatingIfNeeded: index) &* step
            let mapped = origin + Int64(index) * Int64(step) * 1_000 / 90
            #expect(!timing.jumpsBack(ofRTP: rtp, mapped: mapped))
            let time = timing.milliseconds(ofRTP: rtp, mapped: mapped)
            #expect(time > last, "frame \(index) at \(time) ms, after \(last)")
            last = time
        }
        #expect(last >= FrameTiming.maximumTicks / 90, "the file's times went on to its span's end: \(last)")
    }

    @Test func theSendersSpacingIsKeptWhileTheClockJitters() {
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: Self.origin)
        // The estimate steps back and forth by up to 10 ms, as sender reports come and go.
        let jitter: [Int64] = [0, -6_000, -10_000, -9_000, 3_000, 10_000, -2_000, -8_000, 7_000, 9_000]
        let times = Self.write(60, shift: { jitter[$0 % jitter.count] }, timing: &timing)
        #expect(times.first == 0)
        #expect(Self.intervals(times) == Array(repeating: 100, count: 59))
    }

    @Test func thirtyFramesASecondAreWrittenAtTheirOwnMilliseconds() {
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 4_000_000_000, origin: 0)
        let times = (0..<7).map { index in
            let rtp = 4_000_000_000 &+ UInt32(index * 3_000)
            return timing.milliseconds(ofRTP: rtp, mapped: Int64(index) * 1_000_000 / 30)
        }
        #expect(times == [0, 33, 67, 100, 133, 167, 200])
    }

    @Test func aLargerDisagreementIsSlewedUntilTheFileAgreesWithTheClock() {
        for shift: Int64 in [-60_000, 60_000] {
            var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: Self.origin)
            // From frame 5 on, the clock places the frames 60 ms earlier (a better report came), or later.
            let times = Self.write(40, shift: { $0 < 5 ? 0 : shift }, timing: &timing)
            let steps = Self.intervals(times)
            // At most 100 / 16 = 6.25 ms per frame: never a step of the whole 60 ms.
            let largest = steps.map { step in abs(step - 100) }.max() ?? 0
            #expect(largest <= 7, "\(shift): \(steps)")
            #expect(steps.filter { $0 != 100 }.count >= 9, "\(shift): 60 ms takes ten frames")
            // And it goes all the way, not only back within the deadband.
            let agreed: [Int64] = (20..<40).map { index in Int64(index) * 100 + shift / 1_000 }
            #expect(Array(times.suffix(20)) == agreed, "\(shift): \(times)")
        }
    }

    @Test func aJumpOfTheSendersClockIsFollowedAtOnce() {
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: Self.origin)
        let times = Self.write(10, shift: { $0 < 5 ? 0 : 2_000_000 }, timing: &timing)
        #expect(times == [0, 100, 200, 300, 400, 2_500, 2_600, 2_700, 2_800, 2_900])
    }

    /// A jump back is told apart (the recorder ends the file there): past the late-report
    /// limit, not within it, and not a jump forward.
    @Test func aJumpBackPastTheLateReportLimitIsReported() {
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: Self.origin)
        _ = Self.write(5, shift: { _ in 0 }, timing: &timing)
        let next = 5 * Self.frame
        let exact = Self.origin + 500_000
        #expect(!timing.jumpsBack(ofRTP: next, mapped: exact))
        #expect(!timing.jumpsBack(ofRTP: next, mapped: exact - LocationClock.lateReportLimit))
        #expect(timing.jumpsBack(ofRTP: next, mapped: exact - LocationClock.lateReportLimit - 1))
        #expect(timing.jumpsBack(ofRTP: next, mapped: exact - 2_000_000))
        #expect(!timing.jumpsBack(ofRTP: next, mapped: exact + 2_000_000))
        // Measured from where the file is, corrections included: after a jump forward, the
        // clock's new time is not a jump back.
        _ = timing.milliseconds(ofRTP: next, mapped: exact + 2_000_000)
        #expect(!timing.jumpsBack(ofRTP: 6 * Self.frame, mapped: exact + 2_100_000))
        #expect(timing.jumpsBack(ofRTP: 6 * Self.frame, mapped: exact + 100_000))
    }

    @Test func timesStrictlyIncreaseWhenTheClockGoesBackOrATimestampRepeats() {
        var timing = FrameTiming(clockRate: 90_000, rtpTimestamp: 0, origin: Self.origin)
        // Two frames of one timestamp, then the clock jumps 2 s back: nothing shares a time.
        var times = [timing.milliseconds(ofRTP: 0, mapped: Self.origin), timing.milliseconds(ofRTP: 0, mapped: Self.origin)]
        times += (1...5).map { timing.milliseconds(ofRTP: UInt32($0) * Self.frame, mapped: Self.origin - 2_000_000 + Int64($0) * 100_000) }
        #expect(times == [0, 1, 2, 3, 4, 5, 6])
    }
}
