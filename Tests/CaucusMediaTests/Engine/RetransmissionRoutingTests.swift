import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// RTX (RFC 4588) through the router: a publisher's RTX packets restored to the originals they
/// carry, and repairs to a subscriber that negotiated RTX sent on its slot's RTX stream.
@Suite struct RetransmissionRoutingTests {
    typealias Routing = ForwardingEngineTests
    static let publisherNumbering = { var n = Routing.Numbering.aiortc; n.rtx = 99; return n }()
    static let subscriberNumbering = { var n = Routing.Numbering.chromium; n.rtx = 97; return n }()

    /// 1 (RTX) and 3 (no RTX) watch 2's video (RTX on SSRC 21); two packets of it forwarded.
    static func twoWatchingOne() -> (router: ForwardingEngine, one: MediaSlotPlan, three: MediaSlotPlan, firstOut: [Int: UInt16]) {
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: subscriberNumbering)
        let two = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: publisherNumbering)
        let three = Routing.plan(audioSSRC: 3, videoSSRC: 30)
        for (user, plan) in [(1, one), (2, two), (3, three)] { _ = router.add(user, plan: plan, now: .zero) }
        let video = [PublishedStream(publisher: 2, kind: .video)]
        _ = router.update(eligible: [1: video, 2: [], 3: video], now: .zero)
        var firstOut: [Int: UInt16] = [:]
        _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 500), arrival: .zero) { user, header, _ in firstOut[user] = header.sequenceNumber }
        _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 501), arrival: .milliseconds(20)) { _, _, _ in }
        return (router, one, three, firstOut)
    }

    static func rtxPacket(of original: [UInt8], ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16) -> [UInt8] {
        var bytes = original + [0, 0]
        let length = original.count
        let out = bytes.withUnsafeMutableBytes { RTXPacket.wrap($0, length: length, as: RTXEncapsulation(ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber)) }
        return Array(bytes[..<out!])
    }

    @Test func anOfferWithRTXNamesItsRetransmissionStreams() throws {
        let plan = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.publisherNumbering)
        #expect(plan.publishedRetransmissionSSRCs == [.video: 21])
        #expect(plan.publishedFormats[.video]?.retransmissionPayloadType == 99)
        let slots = plan.receiveSlots
        #expect(slots.filter { $0.slot.kind == .video }.allSatisfy { $0.format?.retransmissionPayloadType == 99 })
        #expect(slots.filter { $0.slot.kind == .audio }.allSatisfy { $0.format?.retransmissionPayloadType == nil })
        let ssrcs = slots.map(\.outgoingSSRC) + slots.map(\.retransmissionSSRC)
        #expect(Set(ssrcs).count == ssrcs.count && !ssrcs.contains(20) && !ssrcs.contains(21), "all distinct, none of the offer's")
        #expect(Routing.plan(audioSSRC: 2, videoSSRC: 20).publishedRetransmissionSSRCs.isEmpty, "no RTX answered: none kept")
    }

    /// The repair of a packet lost before the server, sent on 2's RTX stream, fills both
    /// subscribers' gaps as the original would.
    @Test func aPublishersRTXPacketIsRestoredAndFillsTheGap() throws {
        let (router, _, _, firstOut) = Self.twoWatchingOne()
        _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), arrival: .milliseconds(60)) { _, _, _ in }
        let repair = Self.rtxPacket(of: Routing.rtp(ssrc: 20, sequenceNumber: 502), ssrc: 21, payloadType: 99, sequenceNumber: 9)
        let restored = try #require(router.restoringRetransmission(repair))
        var original = Routing.rtp(ssrc: 20, sequenceNumber: 502)
        original[1] = Self.publisherNumbering.video
        #expect(restored == original, "2's own video payload type, SSRC and number")
        var filled: [Int: UInt16] = [:]
        _ = router.forward(rtp: restored, arrival: .milliseconds(70)) { user, header, _ in filled[user] = header.sequenceNumber }
        #expect(filled == [1: firstOut[1]! &+ 2, 3: firstOut[3]! &+ 2])

        let probe = RTPPacket(payloadType: 99, sequenceNumber: 10, timestamp: 0, ssrc: 21, payload: [], paddingLength: 100).encoded()
        #expect(router.restoringRetransmission(probe) == nil, "a padding probe restores nothing")
        let media = Routing.rtp(ssrc: 20, sequenceNumber: 504)
        #expect(router.restoringRetransmission(media) == media, "media passes as it is")
        _ = router.remove(2, now: .seconds(1))
        #expect(router.restoringRetransmission(repair) == repair, "a departed publisher's RTX SSRC is forgotten")
    }

    /// Chromium pads its bandwidth probes with RTX copies of packets it sent moments ago, and
    /// a publisher may answer a NACK after the original came after all: a copy of a packet the
    /// server holds is no repair anyone needs (a subscriber that lost it asks, and is repaired
    /// from the cache), so it reaches no subscriber; a copy of one it lacks fills both gaps.
    @Test func aPublishersRTXCopyOfAPacketTheServerHoldsIsNotForwardedAgain() throws {
        let (router, _, _, firstOut) = Self.twoWatchingOne()
        router.pollOutput { _ in }
        func copies(of number: UInt16, rtx: UInt16, at milliseconds: Int) -> [Int: UInt16] {
            let packet = Self.rtxPacket(of: Routing.rtp(ssrc: 20, sequenceNumber: number), ssrc: 21, payloadType: 99, sequenceNumber: rtx)
            router.receive(rtp: packet, from: 2, at: .milliseconds(milliseconds))
            var sent: [Int: UInt16] = [:]
            router.pollOutput { output in
                if case .copy(let copy, _) = output { sent[copy.subscriber] = copy.header.sequenceNumber }
            }
            return sent
        }
        // 502 is lost on its way to the server.
        router.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), from: 2, at: .milliseconds(60))
        router.pollOutput { _ in }
        for (rtx, number) in [500, 501, 503, 501].enumerated() {
            #expect(copies(of: UInt16(number), rtx: UInt16(rtx), at: 70 + rtx).isEmpty, "a copy of \(number), which the server holds")
        }
        #expect(copies(of: 502, rtx: 4, at: 80) == [1: firstOut[1]! &+ 2, 3: firstOut[3]! &+ 2], "the repair of what it lacked")
        #expect(copies(of: 502, rtx: 5, at: 90).isEmpty, "and a second copy of it, now held")
        var again: [Int: UInt16] = [:]
        router.receive(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 504), from: 2, at: .milliseconds(100))
        router.pollOutput { output in
            if case .copy(let copy, _) = output { again[copy.subscriber] = copy.header.sequenceNumber }
        }
        #expect(again == [1: firstOut[1]! &+ 4, 3: firstOut[3]! &+ 4], "the stream goes on")
    }

    /// 1's NACK is answered on 1's RTX stream (its SSRC, its RTX payload type, numbers of its
    /// own); 3's, on 3's slot SSRC as before.
    @Test func aSubscriberThatNegotiatedRTXGetsRepairsOnItsRTXStream() throws {
        let (router, one, three, firstOut) = Self.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot.outgoingSSRC, lost: [firstOut[1]!, firstOut[1]! &+ 1])).encoded()
        let first = router.route(rtcp: nack, from: 1, now: .milliseconds(30)).retransmissions
        #expect(first.map(\.header.sequenceNumber) == [firstOut[1]!, firstOut[1]! &+ 1], "each as the slot sent it, before wrapping")
        let streams = first.compactMap(\.retransmittedAs)
        #expect(streams.count == 2 && streams.allSatisfy { $0.ssrc == slot.retransmissionSSRC && $0.payloadType == 97 })
        let again = router.route(rtcp: nack, from: 1, now: .milliseconds(40)).retransmissions.compactMap(\.retransmittedAs)
        #expect((streams + again).map(\.sequenceNumber) == (0..<4).map { streams[0].sequenceNumber &+ UInt16($0) }, "the RTX stream numbers its packets in order")

        let threeSlot = try #require(three.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let threeNACK = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 6, mediaSSRC: threeSlot.outgoingSSRC, lost: [firstOut[3]!])).encoded()
        let plain = router.route(rtcp: threeNACK, from: 3, now: .milliseconds(30)).retransmissions
        #expect(plain.count == 1 && plain[0].retransmittedAs == nil && plain[0].header.ssrc == threeSlot.outgoingSSRC)
    }

    /// A NACK as its sender wrote it, pair by pair (PID, and a BLP of none), repeats kept.
    static func rawNACK(of ssrc: UInt32, pairs: [UInt16]) -> [UInt8] {
        var bytes: [UInt8] = [0x81, 205, UInt8((2 + pairs.count) >> 8), UInt8((2 + pairs.count) & 0xFF), 0, 0, 0, 6]
        bytes += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
        for number in pairs { bytes += [UInt8(number >> 8), UInt8(number & 0xFF), 0, 0] }
        return bytes
    }

    /// A NACK that names one number 340 times gets one repair, and one of 400 numbers the
    /// cache holds gets ``ForwardingEngine/maximumNumbersAnsweredPerNACK``: never a copy per
    /// pair the datagram can hold.
    @Test func aNACKIsAnsweredOncePerNumberAndForSoManyNumbersAtMost() throws {
        let (router, _, three, firstOut) = Self.twoWatchingOne()
        let slot = try #require(three.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let repeated = router.route(rtcp: Self.rawNACK(of: slot.outgoingSSRC, pairs: Array(repeating: firstOut[3]!, count: 340)), from: 3, now: .milliseconds(30))
        #expect(repeated.retransmissions.map(\.header.sequenceNumber) == [firstOut[3]!])

        var sent: [UInt16] = []
        for number in UInt16(502)..<902 {
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: number), arrival: .milliseconds(40)) { user, header, _ in
                if user == 3 { sent.append(header.sequenceNumber) }
            }
        }
        #expect(sent.count == 400 && 400 < RetransmissionCache.capacity)
        let many = router.route(rtcp: Self.rawNACK(of: slot.outgoingSSRC, pairs: sent), from: 3, now: .milliseconds(50))
        #expect(many.retransmissions.map(\.header.sequenceNumber) == Array(sent.prefix(ForwardingEngine.maximumNumbersAnsweredPerNACK)))
    }

    static func receiverReport(from sender: UInt32, about ssrcs: [UInt32]) -> [UInt8] {
        let blocks = ssrcs.map {
            RTCPReportBlock(ssrc: $0, fractionLost: 0, cumulativeLost: 0, highestSequenceNumber: 0, jitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        }
        return RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: sender, reports: blocks)).encoded()
    }

    /// A lone loss, as aiortc with several video receivers meets it: it asks once, drops the
    /// RTX repair and never asks again. Its reports never name the RTX stream, so the router
    /// sends the repair again on the slot's own SSRC, and every later repair goes that way —
    /// twice, as a stack that asks once would wait long behind a repair lost on the way.
    @Test func aRepairOnAnRTXStreamTheReportsNeverNameIsSentAgainOnTheSlotsSSRC() throws {
        let (router, one, _, firstOut) = Self.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let lost = firstOut[1]!
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot.outgoingSSRC, lost: [lost])).encoded()
        #expect(router.route(rtcp: nack, from: 1, now: .milliseconds(30)).retransmissions.map { $0.retransmittedAs != nil } == [true])

        let report = Self.receiverReport(from: 5, about: [slot.outgoingSSRC])
        #expect(router.route(rtcp: report, from: 1, now: .milliseconds(300)).retransmissions.isEmpty, "too soon to count")
        #expect(router.route(rtcp: report, from: 1, now: .milliseconds(600)).retransmissions.isEmpty, "one report without it")
        let again = router.route(rtcp: report, from: 1, now: .milliseconds(900)).retransmissions
        #expect(again.map(\.header.sequenceNumber) == [lost, lost] && again.allSatisfy { $0.retransmittedAs == nil && $0.header.ssrc == slot.outgoingSSRC })
        #expect(router.route(rtcp: report, from: 1, now: .milliseconds(1200)).retransmissions.isEmpty, "sent again once")

        let later = router.route(rtcp: nack, from: 1, now: .milliseconds(1300)).retransmissions
        #expect(later.count == 2 && later.allSatisfy { $0.retransmittedAs == nil }, "and later repairs on the slot's SSRC, twice")
    }

    /// A packet lost on the way from the publisher is a gap for every subscriber; when the
    /// publisher's repair comes, one that drops RTX (and so asks once per gap) gets it twice, the
    /// others once.
    @Test func aPublishersRepairGoesTwiceToASubscriberThatDropsRTX() throws {
        let (router, one, _, firstOut) = Self.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot.outgoingSSRC, lost: [firstOut[1]!])).encoded()
        _ = router.route(rtcp: nack, from: 1, now: .milliseconds(30))
        for milliseconds in [300, 600, 900] {
            _ = router.route(rtcp: Self.receiverReport(from: 5, about: [slot.outgoingSSRC]), from: 1, now: .milliseconds(milliseconds))
        }
        #expect(router.subscribers[1]?.retransmissionAcceptance.verdict == .refuses)

        func delivered(_ sequenceNumber: UInt16, at milliseconds: Int) -> [Int: [UInt16]] {
            var numbers: [Int: [UInt16]] = [:]
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: sequenceNumber), arrival: .milliseconds(milliseconds)) { user, header, _ in
                numbers[user, default: []].append(header.sequenceNumber)
            }
            return numbers
        }
        #expect(delivered(503, at: 1000).mapValues(\.count) == [1: 1, 3: 1], "502 lost on the way")
        let repaired = delivered(502, at: 1050)
        #expect(repaired[1] == [firstOut[1]! &+ 2, firstOut[1]! &+ 2], "twice, in its place")
        #expect(repaired[3] == [firstOut[3]! &+ 2], "once")
        #expect(delivered(502, at: 1100).mapValues(\.count) == [1: 1, 3: 1], "a copy of a packet not missing: once each")
    }

    /// The two copies of a repair to a subscriber that drops RTX are two packets to its
    /// downlink's congestion control: each with a transport-wide number of its own.
    @Test func theTwoCopiesOfARepairHaveTransportWideNumbersOfTheirOwn() throws {
        var publisherNumbering = Self.publisherNumbering
        publisherNumbering.transportCCID = 3
        var subscriberNumbering = Self.subscriberNumbering
        subscriberNumbering.transportCCID = 3
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: subscriberNumbering)
        let two = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: publisherNumbering)
        for (user, plan) in [(1, one), (2, two)] { _ = router.add(user, plan: plan, now: .zero) }
        _ = router.update(eligible: [1: [PublishedStream(publisher: 2, kind: .video)], 2: []], now: .zero)
        var firstOut: UInt16?
        for number: UInt16 in [500, 501] {
            let packet = RTPPacket(
                payloadType: 96, sequenceNumber: number, timestamp: 160, ssrc: 20,
                headerExtension: .oneByte([.init(id: 3, data: [0, 0])]), payload: [0x10, 0x00, 3]
            ).encoded()
            _ = router.forward(rtp: packet, arrival: .milliseconds(Int(number) - 500)) { _, header, _ in firstOut = firstOut ?? header.sequenceNumber }
        }
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let lost = try #require(firstOut)
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot.outgoingSSRC, lost: [lost])).encoded()
        _ = router.route(rtcp: nack, from: 1, now: .milliseconds(30))
        var again: [ForwardingEngine.Copy] = []
        for milliseconds in [300, 600, 900] {
            again += router.route(rtcp: Self.receiverReport(from: 5, about: [slot.outgoingSSRC]), from: 1, now: .milliseconds(milliseconds)).retransmissions
        }
        #expect(again.count == 2 && again.allSatisfy { $0.header.sequenceNumber == lost })
        let numbers = again.compactMap(\.transportSequence)
        #expect(numbers.count == 2 && Set(numbers).count == 2, "\(again.map(\.transportSequence))")
    }

    /// A stack that takes RTX names the RTX stream in its next report: its repairs stay there,
    /// whatever its later reports say.
    @Test func aReportThatNamesTheRTXStreamKeepsRepairsOnIt() throws {
        let (router, one, _, firstOut) = Self.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot.outgoingSSRC, lost: [firstOut[1]!])).encoded()
        _ = router.route(rtcp: nack, from: 1, now: .milliseconds(30))
        _ = router.route(rtcp: Self.receiverReport(from: 5, about: [slot.retransmissionSSRC, slot.outgoingSSRC]), from: 1, now: .milliseconds(100))
        for milliseconds in stride(from: 600, through: 3000, by: 300) {
            let report = Self.receiverReport(from: 5, about: [slot.outgoingSSRC])
            #expect(router.route(rtcp: report, from: 1, now: .milliseconds(milliseconds)).retransmissions.isEmpty)
        }
        let later = router.route(rtcp: nack, from: 1, now: .milliseconds(3100)).retransmissions
        #expect(later.count == 1 && later[0].retransmittedAs?.ssrc == slot.retransmissionSSRC, "once, on the RTX stream")
    }
}
