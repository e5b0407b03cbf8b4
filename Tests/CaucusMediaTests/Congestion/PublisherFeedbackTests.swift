import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's transport-cc feedback to publishers, on its own: a publisher's packets are
/// recorded only when its plan negotiated the extension; one feedback per publisher whose
/// packets arrived, in the publishers' order, each about the SSRC the engine names; a new peer
/// or a departure forgets what arrived.
@Suite struct PublisherFeedbackTests {
    typealias Routing = ForwardingEngineTests
    typealias Packets = TransportFeedbackRoutingTests

    static let withTransportCC = Packets.withTransportCC

    /// The feedback `rtcp` holds: its media SSRC, base number, and which numbers it reports received.
    static func decoded(_ rtcp: [UInt8]) throws -> (mediaSSRC: UInt32, base: UInt16, received: [Bool]) {
        let packets = try RTCPPacket.decodeCompound(rtcp)
        guard case .feedback(let opaque) = try #require(packets.first), opaque.format == 15 else { throw TestFailure("\(packets)") }
        let feedback = try #require(RTCPTransportFeedback(
            senderSSRC: opaque.senderSSRC, mediaSSRC: opaque.mediaSSRC, feedbackControlInformation: opaque.feedbackControlInformation))
        #expect(opaque.senderSSRC == ForwardingEngine.routerSSRC)
        return (opaque.mediaSSRC, feedback.baseSequenceNumber, feedback.deltas.map { $0 != nil })
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func due(_ feedback: inout PublisherFeedback) -> [(user: Int, rtcp: [UInt8])] {
        feedback.due(senderSSRC: ForwardingEngine.routerSSRC) { UInt32($0) * 1_000 }
    }

    @Test func onlyAPublisherThatNegotiatedTheExtensionIsRecorded() throws {
        var feedback = PublisherFeedback()
        feedback.learn(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10))
        feedback.learn(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withTransportCC))
        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 1, transport: 500), from: 2, at: .milliseconds(100))
        // Another SSRC (a probe's, a layer's) counts all the same; 501 never comes.
        feedback.record(Packets.packet(ssrc: 4321, sequenceNumber: 9, transport: 502, payload: [], padding: 200), from: 2, at: .milliseconds(101))
        // 1 negotiated nothing: its numbers are not read, even with the extension on its packets.
        feedback.record(Packets.packet(ssrc: 10, sequenceNumber: 1, transport: 7), from: 1, at: .milliseconds(102))
        // Nobody learned: nothing.
        feedback.record(Packets.packet(ssrc: 30, sequenceNumber: 1, transport: 9), from: 3, at: .milliseconds(103))

        let due = Self.due(&feedback)
        #expect(due.map(\.user) == [2])
        let decoded = try Self.decoded(try #require(due.first).rtcp)
        #expect(decoded.mediaSSRC == 2_000 && decoded.base == 500 && decoded.received == [true, false, true])
        #expect(Self.due(&feedback).isEmpty, "nothing arrived since")
    }

    @Test func publishersAreReportedInOrderEachAboutTheSSRCTheEngineNames() throws {
        var feedback = PublisherFeedback()
        for user in [5, 3, 4] {
            feedback.learn(user, plan: Routing.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user) * 10, numbering: Self.withTransportCC))
        }
        for (index, user) in [5, 3].enumerated() {
            feedback.record(Packets.packet(ssrc: UInt32(user), sequenceNumber: 1, transport: UInt16(100 * user)), from: user, at: .milliseconds(index))
        }
        let due = Self.due(&feedback)
        #expect(due.map(\.user) == [3, 5], "4 sent nothing")
        #expect(try due.map { try Self.decoded($0.rtcp).mediaSSRC } == [3_000, 5_000])
        #expect(try due.map { try Self.decoded($0.rtcp).base } == [300, 500])
    }

    @Test func aNewPeerOrADepartureForgetsWhatArrived() throws {
        var feedback = PublisherFeedback()
        let plan = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withTransportCC)
        feedback.learn(2, plan: plan)
        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 1, transport: 500), from: 2, at: .milliseconds(1))
        feedback.learn(2, plan: plan)
        #expect(Self.due(&feedback).isEmpty, "the new peer's numbers start over")
        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 1, transport: 9), from: 2, at: .milliseconds(2))
        #expect(try Self.due(&feedback).map { try Self.decoded($0.rtcp).base } == [9])

        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 2, transport: 10), from: 2, at: .milliseconds(3))
        feedback.forget(2)
        #expect(Self.due(&feedback).isEmpty, "a departed publisher's arrivals are not reported")
        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 3, transport: 11), from: 2, at: .milliseconds(4))
        #expect(Self.due(&feedback).isEmpty, "nor recorded after it left")

        // A new peer that negotiated nothing records nothing.
        feedback.learn(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20))
        feedback.record(Packets.packet(ssrc: 20, sequenceNumber: 4, transport: 12), from: 2, at: .milliseconds(5))
        #expect(Self.due(&feedback).isEmpty)
    }
}
