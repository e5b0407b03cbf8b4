import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine names when a lost publisher packet falls due to be asked for again, so the shell
/// wakes then (`nextRepairDeadline`, `handleRepairs(now:)`) instead of at its next tick: a
/// retry 30 ms after the ask, not at the first 50 ms tick after that.
@Suite struct RepairDeadlineTests {
    typealias Routing = ForwardingEngineTests
    typealias RTX = RetransmissionRoutingTests

    /// The NACKs the engine sends publishers, as (publisher, lost numbers), drained.
    static func nacks(from engine: ForwardingEngine) throws -> [(user: Int, lost: [UInt16])] {
        var found: [(user: Int, lost: [UInt16])] = []
        var packets: [(user: Int, packet: [UInt8])] = []
        engine.pollOutput { output in
            if case .rtcp(let user, let packet, _) = output { packets.append((user, packet)) }
        }
        for (user, packet) in packets {
            for case .genericNACK(let nack) in try RTCPPacket.decodeCompound(packet) { found.append((user, nack.lostSequenceNumbers)) }
        }
        return found
    }

    @Test func aLostPacketIsAskedForAgainAtTheDeadlineTheEngineNamesAndNotBefore() throws {
        let (engine, _, _, _) = RTX.twoWatchingOne()
        _ = try Self.nacks(from: engine)
        #expect(engine.nextRepairDeadline == nil, "nothing is missing")

        let lost = Duration.milliseconds(40)
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), from: 2, at: lost)
        let first = try Self.nacks(from: engine)
        #expect(first.count == 1 && first[0].user == 2 && first[0].lost == [502], "502 asked for at once")
        let due = lost + UpstreamLoss.retryInterval
        #expect(engine.nextRepairDeadline == due)

        engine.handleRepairs(now: due - .milliseconds(1))
        #expect(try Self.nacks(from: engine).isEmpty, "not before its deadline")
        #expect(engine.nextRepairDeadline == due)

        engine.handleRepairs(now: due)
        let again = try Self.nacks(from: engine)
        #expect(again.count == 1 && again[0].user == 2 && again[0].lost == [502], "asked again at the deadline")
        #expect(engine.nextRepairDeadline == due + UpstreamLoss.retryInterval)

        // The repair comes: nothing is due any more.
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 502), from: 2, at: due + .milliseconds(5))
        engine.handleRepairs(now: due + UpstreamLoss.retryInterval)
        #expect(try Self.nacks(from: engine).isEmpty)
        #expect(engine.nextRepairDeadline == nil)
    }

    /// The tick does the same repairs (the shell calls both): after it, the deadline is the
    /// next ask's, and a number asked its last time is given up with a keyframe request.
    @Test func theTickKeepsTheDeadlineAndAGapNeverFilledEndsWithNone() throws {
        let (engine, _, _, _) = RTX.twoWatchingOne()
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), from: 2, at: .milliseconds(40))
        _ = try Self.nacks(from: engine)
        var now = Duration.milliseconds(40)
        var asks = 1
        while let due = engine.nextRepairDeadline, asks < 20 {
            now = due
            engine.handleTimeout(now: now)
            asks += try Self.nacks(from: engine).filter { $0.lost == [502] }.count
        }
        #expect(asks == UpstreamLoss.maximumAsks)
        #expect(engine.nextRepairDeadline == nil, "given up: nothing left to ask")
        #expect(now == .milliseconds(40) + UpstreamLoss.retryInterval * UpstreamLoss.maximumAsks)
    }
}
