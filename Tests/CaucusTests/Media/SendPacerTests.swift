import Testing

@testable import Caucus

/// The SDK's send-side pacer, driven directly: a burst within its bucket goes at once, the
/// rest at its rate, in order.
@Suite struct SendPacerTests {
    static func datagrams(_ count: Int, size: Int = 1_000) -> [[UInt8]] {
        (0..<count).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: size) }
    }

    @Test func aBurstWithinTheBucketGoesAtOnce() {
        var pacer = SendPacer(bytesPerSecond: 100_000, burstBytes: 5_000)
        let sent = pacer.send(Self.datagrams(5), now: .seconds(1))
        #expect(sent.count == 5)
        #expect(pacer.queued == 0 && pacer.nextRelease == nil)
    }

    @Test func theRestGoesAtTheRateInOrder() throws {
        // 100 kB/s: a 1,000-byte datagram every 10 ms once the 3,000-byte bucket is spent.
        var pacer = SendPacer(bytesPerSecond: 100_000, burstBytes: 3_000)
        let all = Self.datagrams(10)
        var out = pacer.send(all, now: .seconds(1))
        #expect(out.count == 3)
        var now = Duration.seconds(1)
        var releases = 0
        while pacer.queued > 0 {
            let next = try #require(pacer.nextRelease)
            #expect(next > now)
            now = next
            out += pacer.release(now: now)
            releases += 1
        }
        #expect(out == all, "every datagram, once, in order")
        #expect(releases == 7)
        // Seven more at 10 ms each.
        #expect(now - .seconds(1) >= .milliseconds(70) && now - .seconds(1) < .milliseconds(72), "\(now)")
        // Nothing released before its time.
        var early = SendPacer(bytesPerSecond: 100_000, burstBytes: 1_000)
        _ = early.send(Self.datagrams(3), now: .zero)
        #expect(early.release(now: .milliseconds(5)).isEmpty)
        #expect(early.release(now: .milliseconds(10)).count == 1)
    }

    @Test func theBucketRefillsOnlyUpToItsBurst() {
        var pacer = SendPacer(bytesPerSecond: 100_000, burstBytes: 2_000)
        _ = pacer.send(Self.datagrams(2), now: .zero)
        // An hour idle still allows only the burst at once.
        #expect(pacer.send(Self.datagrams(5), now: .seconds(3_600)).count == 2)
        #expect(pacer.queued == 3)
    }

    @Test func aDatagramLargerThanTheBurstGoesOnceTheBucketIsFull() throws {
        var pacer = SendPacer(bytesPerSecond: 100_000, burstBytes: 1_000)
        #expect(pacer.send(Self.datagrams(1, size: 1_000), now: .zero).count == 1)
        #expect(pacer.send(Self.datagrams(1, size: 1_400), now: .zero).isEmpty)
        let next = try #require(pacer.nextRelease)
        #expect(next == .milliseconds(10))
        #expect(pacer.release(now: next).count == 1)
    }
}
