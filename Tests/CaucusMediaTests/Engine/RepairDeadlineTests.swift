import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine names when it next needs the time (`nextDeadline`), as a peer does, and the shell
/// calls `handleDeadline(now:)` then: a lost packet asked for again 30 ms after the ask, not at
/// the next 50 ms tick after that; the periodic work every 50 ms on a grid every engine shares.
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

    @Test func anEngineNeedsTheTimeFromItsFirstPeerOnEveryIntervalOnOneGrid() {
        let interval = ForwardingEngine.standardPeriodicInterval
        let engine = ForwardingEngine()
        #expect(engine.nextDeadline == nil, "no peer: nothing to do")
        engine.addPeer(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: .milliseconds(12))
        #expect(engine.nextDeadline == interval, "the first grid instant after the peer came")
        // Another session's engine, its first peer later: the same instants, one wake for both.
        let other = ForwardingEngine()
        other.addPeer(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: interval - .milliseconds(1))
        #expect(other.nextDeadline == interval)

        #expect(!engine.isPeriodicWorkDue(at: interval - .milliseconds(1)))
        engine.handleDeadline(now: interval - .milliseconds(1))
        #expect(engine.lastPeriodicRun == nil, "nothing ran before it was due")
        #expect(engine.isPeriodicWorkDue(at: interval))
        engine.handleDeadline(now: interval)
        #expect(engine.lastPeriodicRun == interval)
        #expect(engine.nextDeadline == interval * 2)
        // A late wake runs the work once and lands on the grid again.
        engine.handleDeadline(now: interval * 3 + .milliseconds(7))
        #expect(engine.lastPeriodicRun == interval * 3 + .milliseconds(7))
        #expect(engine.nextDeadline == interval * 4)
        // Peers come and go; the schedule keeps its grid.
        engine.addPeer(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20), now: interval * 3 + .milliseconds(9))
        #expect(engine.nextDeadline == interval * 4)

        // The server's media interval, when set, is the engine's.
        let slow = ForwardingEngine(periodicInterval: .seconds(2))
        slow.addPeer(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: .milliseconds(12))
        #expect(slow.nextDeadline == .seconds(2))
    }

    @Test func aLostPacketIsAskedForAgainAtTheDeadlineTheEngineNamesAndNotBefore() throws {
        let (engine, _, _, _) = RTX.twoWatchingOne()
        _ = try Self.nacks(from: engine)
        let interval = ForwardingEngine.standardPeriodicInterval
        #expect(engine.repairDeadline == nil && engine.nextDeadline == interval, "nothing is missing: the periodic work only")

        let lost = Duration.milliseconds(40)
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), from: 2, at: lost)
        let first = try Self.nacks(from: engine)
        #expect(first.count == 1 && first[0].user == 2 && first[0].lost == [502], "502 asked for at once")
        let due = lost + UpstreamLoss.retryInterval
        #expect(engine.repairDeadline == due && engine.nextDeadline == interval, "the periodic work comes first")

        engine.handleDeadline(now: interval)
        #expect(try Self.nacks(from: engine).isEmpty, "the periodic work asks nothing before the repair's deadline")
        #expect(engine.nextDeadline == due)
        engine.handleDeadline(now: due - .milliseconds(1))
        #expect(try Self.nacks(from: engine).isEmpty, "not before its deadline")
        #expect(engine.nextDeadline == due)

        engine.handleDeadline(now: due)
        let again = try Self.nacks(from: engine)
        #expect(again.count == 1 && again[0].user == 2 && again[0].lost == [502], "asked again at the deadline")
        #expect(engine.repairDeadline == due + UpstreamLoss.retryInterval)
        #expect(engine.nextDeadline == min(due + UpstreamLoss.retryInterval, interval * 2))

        // The repair comes: nothing is due any more but the periodic work.
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 502), from: 2, at: due + .milliseconds(5))
        engine.handleDeadline(now: due + UpstreamLoss.retryInterval)
        #expect(try Self.nacks(from: engine).isEmpty)
        #expect(engine.repairDeadline == nil)
        #expect(engine.nextDeadline == interval * 3)
    }

    /// The periodic work does the same repairs: after it, the repair deadline is the next
    /// ask's, and a number asked its last time is given up with a keyframe request.
    @Test func thePeriodicWorkKeepsTheDeadlineAndAGapNeverFilledEndsWithNone() throws {
        let (engine, _, _, _) = RTX.twoWatchingOne()
        engine.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), from: 2, at: .milliseconds(40))
        _ = try Self.nacks(from: engine)
        var now = Duration.milliseconds(40)
        var asks = 1
        while let due = engine.repairDeadline, asks < 20 {
            now = due
            engine.handleTimeout(now: now)
            asks += try Self.nacks(from: engine).filter { $0.lost == [502] }.count
        }
        #expect(asks == UpstreamLoss.maximumAsks)
        #expect(engine.repairDeadline == nil, "given up: nothing left to ask")
        #expect(now == .milliseconds(40) + UpstreamLoss.retryInterval * UpstreamLoss.maximumAsks)
    }
}
