import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Transport-cc feedback to publishers through the router: what arrives with a transport-wide
/// sequence number (media, RTX repairs and probes alike) is reported to its publisher on the
/// timer, whatever the SSRC; nothing for a publisher that did not negotiate it.
@Suite struct TransportFeedbackRoutingTests {
    typealias Routing = ForwardingEngineTests
    static let withTransportCC = { var n = Routing.Numbering.chromium; n.transportCCID = 3; n.rtx = 97; return n }()

    /// `rtp` with a one-byte extension block carrying transport-wide sequence number `transport` as ID 3.
    static func packet(ssrc: UInt32, sequenceNumber: UInt16, transport: UInt16, payload: [UInt8] = [0x10, 0, 3], padding: UInt8 = 0) -> [UInt8] {
        RTPPacket(
            payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 0, ssrc: ssrc,
            headerExtension: .oneByte([.init(id: 3, data: [UInt8(transport >> 8), UInt8(transport & 0xFF)])]), payload: payload,
            paddingLength: padding
        ).encoded()
    }

    /// Kept where the offerer sends (the server reports what it receives) and where it
    /// receives (it reports what the server sent it: its downlink estimate).
    @Test func theAnswerKeepsTransportCCWhereTheOffererSendsAndReceives() throws {
        let plan = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withTransportCC)
        #expect(plan.publishedFormats[.video]?.headerExtensionIDs[RTPExtensionURI.transportWideCC] == 3)
        #expect(plan.publishedFormats[.video]?.codec.feedback.contains("transport-cc") == true)
        #expect(plan.receiveSlots.allSatisfy { $0.format?.headerExtensionIDs[RTPExtensionURI.transportWideCC] == 3 })
        #expect(plan.receiveSlots.allSatisfy { $0.format?.codec.feedback.contains("transport-cc") == true })
    }

    @Test func arrivalsAreReportedToTheirPublisherOnTheTimer() throws {
        let router = ForwardingEngine()
        _ = router.add(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: .zero)
        _ = router.add(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withTransportCC), now: .zero)
        router.recordTransportSequence(of: Self.packet(ssrc: 20, sequenceNumber: 1, transport: 500), from: 2, at: .milliseconds(100))
        router.recordTransportSequence(of: Self.packet(ssrc: 2, sequenceNumber: 1, transport: 502), from: 2, at: .milliseconds(101))
        // A bandwidth probe on an SSRC no offer named (a simulcast layer's RTX, say): counted all the same.
        router.recordTransportSequence(of: Self.packet(ssrc: 4321, sequenceNumber: 9, transport: 503, payload: [], padding: 200), from: 2, at: .milliseconds(102))
        // 1 negotiated no transport-cc: its packets are not recorded, even with the extension.
        router.recordTransportSequence(of: Self.packet(ssrc: 10, sequenceNumber: 1, transport: 7), from: 1, at: .milliseconds(103))

        let due = router.tick(now: .milliseconds(150))
        #expect(due.map(\.user) == [2])
        let packets = try RTCPPacket.decodeCompound(try #require(due.first).rtcp)
        guard case .feedback(let opaque) = try #require(packets.first), opaque.format == 15 else { Issue.record("\(packets)"); return }
        let feedback = try #require(RTCPTransportFeedback(senderSSRC: opaque.senderSSRC, mediaSSRC: opaque.mediaSSRC, feedbackControlInformation: opaque.feedbackControlInformation))
        #expect(feedback.baseSequenceNumber == 500)
        #expect(feedback.deltas.map { $0 != nil } == [true, false, true, true], "501 never came")
        #expect(router.tick(now: .milliseconds(200)).isEmpty, "nothing arrived since")

        _ = router.remove(2, now: .seconds(1))
        router.recordTransportSequence(of: Self.packet(ssrc: 20, sequenceNumber: 2, transport: 504), from: 2, at: .seconds(1))
        #expect(router.tick(now: .seconds(2)).isEmpty, "a departed publisher is forgotten")
    }

    /// The publisher's transport numbers never reach a subscriber: replaced by the subscriber's
    /// own where it negotiated the extension (under its ID), blanked otherwise or when the
    /// caller has no number to give.
    @Test func theTransportSequenceIsTheSubscribersOwnOrBlanked() throws {
        let publisher = StreamFormat(codec: SDPCodec(payloadType: 96, name: "VP8", clockRate: 90000), headerExtensionIDs: [RTPExtensionURI.transportWideCC: 3])
        let estimating = StreamFormat(codec: SDPCodec(payloadType: 96, name: "VP8", clockRate: 90000), headerExtensionIDs: [RTPExtensionURI.transportWideCC: 5])
        let plain = StreamFormat(codec: SDPCodec(payloadType: 96, name: "VP8", clockRate: 90000), headerExtensionIDs: [:])
        func sent(_ translation: HeaderTranslation, stamp: UInt16?) throws -> [RTPHeaderExtensionElement] {
            var bytes = Self.packet(ssrc: 20, sequenceNumber: 1, transport: 0xABCD)
            let length = bytes.withUnsafeMutableBytes { translation.apply(to: $0, length: $0.count, transportSequence: stamp) }
            let packet = try RTPPacket(decoding: Array(bytes[..<(try #require(length))]))
            guard case .oneByte(let elements) = packet.headerExtension else { return [] }
            return elements
        }
        let toEstimating = try #require(HeaderTranslation(from: publisher, to: estimating))
        #expect(toEstimating.carriesTransportSequence && !toEstimating.isIdentity)
        #expect(try sent(toEstimating, stamp: 0x0102) == [.init(id: 5, data: [0x01, 0x02])])
        #expect(try sent(toEstimating, stamp: nil).isEmpty, "no number of its own: blanked")
        let sameIDs = try #require(HeaderTranslation(from: publisher, to: publisher))
        #expect(!sameIDs.isIdentity, "the same ID still carries another number")
        #expect(try sent(sameIDs, stamp: 7) == [.init(id: 3, data: [0, 7])])
        let toPlain = try #require(HeaderTranslation(from: publisher, to: plain))
        #expect(!toPlain.carriesTransportSequence && toPlain.extensionID(for: 3) == nil)
        #expect(try sent(toPlain, stamp: 7).isEmpty)
    }
}
