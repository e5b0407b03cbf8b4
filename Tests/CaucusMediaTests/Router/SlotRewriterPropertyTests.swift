import CaucusMedia
import CaucusSFU
import PropertyBased
import Testing

/// One slot fed random source changes and packets from three sources that start near the
/// sequence-number and timestamp wraps, lose packets, repeat and reorder some: the slot's
/// stream stays one continuous stream, and a late packet of the current run (reordered, or
/// retransmitted after a NACK) goes out under the number the subscriber is missing.
@Suite struct SlotRewriterProperties {
    struct Source {
        let ssrc: UInt32
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var sent: [(sequenceNumber: UInt16, timestamp: UInt32)] = []
    }

    @Test(.shrinking(false))
    func aSlotsOutgoingStreamStaysContinuousAcrossSourceChanges() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000_000), Gen.bool) { seed, video in
            var random = SplitMix(seed: UInt64(seed))
            let kind: StreamKind = video ? .video : .audio
            var slot = SlotRewriter(
                slot: SlotID(kind: kind, index: 0), outgoingSSRC: 0xABCD_0001,
                initialSequenceNumber: UInt16.random(in: 65_500...65_535, using: &random),
                initialTimestamp: UInt32.random(in: (UInt32.max - 100_000)...UInt32.max, using: &random))
            var sources = (0..<3).map { index in
                Source(
                    ssrc: 0x1000 + UInt32(index), sequenceNumber: UInt16.random(in: 65_400...65_535, using: &random),
                    timestamp: UInt32.random(in: (UInt32.max - 3_000_000)...UInt32.max, using: &random))
            }
            var now = Duration.seconds(100)
            var last: (out: RewrittenHeader, inSequence: UInt16, inTimestamp: UInt32, source: UInt32)?
            var switchedSinceLast = true
            var forwarded = 0
            var originals: [UInt16: (UInt32, UInt16)] = [:]
            // The current run: its first incoming number, its highest, and its offsets.
            var run: (firstIn: UInt16, highestIn: UInt16, sequenceOffset: UInt16, timestampOffset: UInt32)?
            for _ in 0..<600 {
                now += .milliseconds(Int.random(in: 0...40, using: &random))
                if Int.random(in: 0..<40, using: &random) == 0 {
                    let choice = Int.random(in: 0...3, using: &random)
                    let target = choice == 3 ? nil : sources[choice].ssrc
                    let changed = target != slot.source
                    if changed { switchedSinceLast = true }
                    let keyframe = slot.select(source: target)
                    #expect(keyframe == (video && changed && target != nil), "a keyframe is asked for exactly when a video slot gets a new source")
                    continue
                }
                let index = Int.random(in: 0..<3, using: &random)
                var packet: (sequenceNumber: UInt16, timestamp: UInt32)
                if !sources[index].sent.isEmpty && Int.random(in: 0..<15, using: &random) == 0 {
                    packet = sources[index].sent.randomElement(using: &random)!  // a repeat or a late one
                } else {
                    sources[index].sequenceNumber &+= UInt16(Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 2...4, using: &random) : 1)
                    sources[index].timestamp &+= UInt32(Int.random(in: 0...3, using: &random) == 0 ? 0 : Int.random(in: 1...4_000, using: &random))
                    packet = (sources[index].sequenceNumber, sources[index].timestamp)
                    sources[index].sent.append(packet)
                }
                let ssrc = sources[index].ssrc
                let header = slot.rewrite(ssrc: ssrc, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, payloadLength: 100, arrival: now)
                let startsRun = last == nil || switchedSinceLast || last?.source != ssrc
                let isLateInRun = !startsRun && run.map {
                    !Self.isNewer(packet.sequenceNumber, than: $0.highestIn)
                        && (packet.sequenceNumber &- $0.firstIn) <= ($0.highestIn &- $0.firstIn)
                } == true
                guard let header else {
                    // Dropped: another source's, one from before its run, or one whose timestamp
                    // would go back.
                    let isNew = last.map { Self.isNewer(packet.sequenceNumber, than: $0.inSequence) && !Self.isNewer($0.inTimestamp, than: packet.timestamp) } ?? true
                    #expect(ssrc != slot.source || !(startsRun || isNew), "a new packet of the current source was dropped")
                    #expect(ssrc != slot.source || !isLateInRun, "a late packet of the current run was dropped")
                    continue
                }
                #expect(ssrc == slot.source, "a packet of a source the slot does not carry was forwarded")
                #expect(header.ssrc == 0xABCD_0001, "the slot's SSRC changed")
                if isLateInRun, let run, let last {
                    #expect(header.sequenceNumber == packet.sequenceNumber &+ run.sequenceOffset, "a late packet left under another number")
                    #expect(header.timestamp == packet.timestamp &+ run.timestampOffset, "a late packet left with another timestamp")
                    #expect(!Self.isNewer(header.sequenceNumber, than: last.out.sequenceNumber), "a late packet went out as a new one")
                    continue
                }
                if let last {
                    #expect(Self.isNewer(header.sequenceNumber, than: last.out.sequenceNumber), "sequence number went back")
                    if startsRun {
                        #expect(header.sequenceNumber == last.out.sequenceNumber &+ 1, "a new source does not follow on at +1")
                    } else {
                        #expect(header.sequenceNumber &- last.out.sequenceNumber == packet.sequenceNumber &- last.inSequence, "a gap was not kept")
                    }
                    #expect(!Self.isNewer(last.out.timestamp, than: header.timestamp), "timestamp went back")
                }
                if startsRun {
                    run = (packet.sequenceNumber, packet.sequenceNumber, header.sequenceNumber &- packet.sequenceNumber, header.timestamp &- packet.timestamp)
                } else {
                    run?.highestIn = packet.sequenceNumber
                }
                originals[header.sequenceNumber] = (ssrc, packet.sequenceNumber)
                last = (header, packet.sequenceNumber, packet.timestamp, ssrc)
                switchedSinceLast = false
                forwarded += 1
            }
            // A NACK of everything recently sent goes back to the right sources and numbers.
            if let last {
                let recent = (0..<50).map { last.out.sequenceNumber &- UInt16($0) }.filter { originals[$0] != nil }
                let nacks = slot.translate(RTCPGenericNACK(senderSSRC: 0xABCD_0001, mediaSSRC: 0xABCD_0001, lost: recent), senderSSRC: 7)
                for nack in nacks {
                    for original in nack.lostSequenceNumbers {
                        #expect(recent.contains { originals[$0]! == (nack.mediaSSRC, original) }, "NACK mapped to a packet never sent")
                    }
                }
            }
            #expect(forwarded > 0 || slot.source == nil)
        }
    }

    static func isNewer(_ a: UInt16, than b: UInt16) -> Bool { a != b && (a &- b) < 0x8000 }

    static func isNewer(_ a: UInt32, than b: UInt32) -> Bool { a != b && (a &- b) < 0x8000_0000 }
}
