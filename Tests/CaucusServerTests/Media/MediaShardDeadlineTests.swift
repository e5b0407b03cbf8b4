import CaucusCore
import CaucusMedia
import CaucusSFU
import Testing
@_spi(Benchmarks) @testable import CaucusServer

/// The shard's timer follows its engines (`MediaShardCore.nextEngineDeadline`, which the
/// channel handler wakes for): none before a session has a peer, the periodic work on the
/// engines' 50 ms grid, and a lost packet's ask again 30 ms after the first, before the grid's
/// next instant. Driven in memory (`InMemoryShard`) with real peers on the test's clock.
@Suite struct MediaShardDeadlineTests {
    typealias Shard = MediaShardCoreTests

    /// The NACKs for `ssrc` that the shard sent Ada's client, counted.
    static func nacks(of ssrc: UInt32, to client: InMemoryShard.Client) -> Int {
        client.receivedRTCP.reduce(0) { count, compound in
            count + ((try? RTCPPacket.decodeCompound(compound)) ?? []).filter {
                if case .genericNACK(let nack) = $0 { nack.mediaSSRC == ssrc } else { false }
            }.count
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    @Test func theShardWakesWhenItsEnginesSayAndTheirWorkRunsThenOnly() throws {
        let shard = try InMemoryShard()
        let interval = ForwardingEngine.standardPeriodicInterval
        // Off the grid: a schedule of the first peer's time plus the interval would be off it too.
        shard.advance(by: .milliseconds(13))
        #expect(shard.core.nextEngineDeadline == nil, "no session has a peer: nothing to wake for")

        try shard.connect(Shard.ada, sections: [.publishing(.video, ssrc: Shard.adaSSRC)])
        try shard.connect(Shard.bo, sections: [.receiving(.video)])
        shard.route([
            Shard.ada: (Shard.roomA, []), Shard.bo: (Shard.roomA, [PublishedStream(publisher: Shard.ada, kind: .video)]),
        ])
        let periodic = try #require(shard.core.nextEngineDeadline, "a peer starts the engine's periodic work")
        #expect(periodic > shard.now && periodic <= shard.now + interval)
        #expect(Self.nanoseconds(periodic) % Self.nanoseconds(interval) == 0, "on the engines' grid: \(periodic)")

        // Ada's 101 is lost: asked for at once, and again 30 ms later unless it comes.
        shard.fate = { toServer, _, datagram in
            toServer && DatagramKind(classifying: datagram) == .rtp && Shard.sequence(of: datagram) == 101 ? .lose : .deliver
        }
        for sequence in UInt16(100)..<103 {
            try shard.publish(Shard.frame(Shard.adaSSRC, sequence, mark: 0xAD, keyframe: sequence == 100), from: Shard.ada)
        }
        let ada = try #require(shard.clients[Shard.ada])
        #expect(Self.nacks(of: Shard.adaSSRC, to: ada) == 1)
        let retry = shard.now + UpstreamLoss.retryInterval
        #expect(retry < periodic, "the ask again comes before the periodic work (the loss came at a grid instant)")
        #expect(shard.core.nextEngineDeadline == retry, "the earlier of the two")

        // Woken at each deadline it names, and its work done then, not a millisecond before:
        // the ask again at its deadline, the periodic work at the grid's instant.
        let lastRun = { shard.core.router.lastPeriodicRun(of: InMemoryShard.session) }
        #expect(lastRun() == nil)
        var wakes: [Duration] = []
        while wakes.count < 2, let due = shard.core.nextEngineDeadline {
            let (asked, ran) = (Self.nacks(of: Shard.adaSSRC, to: ada), lastRun())
            shard.advance(by: due - shard.now - .milliseconds(1))
            shard.tick()
            #expect(Self.nacks(of: Shard.adaSSRC, to: ada) == asked && lastRun() == ran, "nothing ran before \(due)")
            shard.advance(by: .milliseconds(1))
            shard.tick()
            wakes.append(due)
        }
        #expect(wakes == [retry, periodic], "woken for the ask again, then the periodic work")
        #expect(Self.nacks(of: Shard.adaSSRC, to: ada) == 2, "asked again once, at its deadline")
        #expect(lastRun() == periodic)
        #expect(shard.core.nextEngineDeadline == min(periodic + interval, retry + UpstreamLoss.retryInterval))
    }
}
