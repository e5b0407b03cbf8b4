import Testing

import CaucusMedia
import CaucusSFU

/// A subscriber whose signalling channel is gone while its peer lives on (its user reconnects):
/// what it was told it receives goes on, but no slot takes a publisher it was not told of (it
/// would show that one's media as the old one's), until a channel brings it a new slot map.
extension ForwardingEngineEventTests {
    /// User 1 may receive the video of `publishers`, on `channel` (nil: it has none now).
    func handOver(_ publishers: [Int], channel: Channel?, at now: Duration) {
        var handover = RoutingHandover()
        handover.users[1] = RoutingHandover.Entry(
            eligible: publishers.map { PublishedStream(publisher: $0, kind: .video) }, location: 0, channel: channel.map(SignallingChannelID.init))
        engine.handle(handover, now: now)
    }

    /// The subscribers a keyframe of `publisher`'s video reaches.
    func receivers(ofKeyframeFrom publisher: Int, sequenceNumber: UInt16, at now: Duration) -> [Int] {
        engine.receive(
            rtp: Self.video(ssrc: UInt32(publisher * 10), sequenceNumber: sequenceNumber, keyframe: true), from: publisher,
            at: now)
        return Self.copies(outputs(), .forward).map(\.subscriber)
    }

    static func videoPublishers(_ outputs: [ForwardingOutput], to user: Int) -> [[Int?]] {
        outputs.compactMap { output in
            guard case .slotMap(user, let map, _) = output else { return nil }
            return map.slots.filter { $0.kind == .video }.map(\.publisher)
        }
    }

    @Test func aSubscriberWithoutItsChannelKeepsWhatItWasToldAndTakesNoNewPublisher() {
        let first = Channel()
        handOver([2], channel: first, at: .seconds(1))
        #expect(Self.videoPublishers(outputs(), to: 1) == [[2, nil]])
        #expect(receivers(ofKeyframeFrom: 2, sequenceNumber: 1, at: .seconds(1)) == [1])

        // Away: 2 goes on reaching it; 3, eligible now, gets no slot (1 could not be told).
        handOver([2, 3], channel: nil, at: .seconds(2))
        #expect(Self.videoPublishers(outputs(), to: 1).isEmpty, "no channel, no slot map")
        #expect(receivers(ofKeyframeFrom: 2, sequenceNumber: 2, at: .seconds(2)) == [1], "what it was told goes on")
        #expect(receivers(ofKeyframeFrom: 3, sequenceNumber: 1, at: .seconds(2)).isEmpty, "a publisher it was not told of")

        // Moved away meanwhile: 2 is no longer eligible, so its slot empties; 3 still waits.
        handOver([3], channel: nil, at: .seconds(3))
        _ = outputs()
        #expect(receivers(ofKeyframeFrom: 2, sequenceNumber: 3, at: .seconds(3)).isEmpty, "a move applies at once")
        #expect(receivers(ofKeyframeFrom: 3, sequenceNumber: 2, at: .seconds(3)).isEmpty)

        // Back on a new channel: the slot map comes, and 3 reaches it.
        let second = Channel()
        handOver([3], channel: second, at: .seconds(4))
        #expect(Self.videoPublishers(outputs(), to: 1) == [[3, nil]])
        #expect(receivers(ofKeyframeFrom: 3, sequenceNumber: 3, at: .seconds(4)) == [1])
    }

    /// Never told anything (no channel ever): the engine routes as before, as the session's
    /// first handover may come after the peer.
    @Test func aSubscriberNeverToldIsRoutedAsBefore() {
        handOver([2, 3], channel: nil, at: .seconds(1))
        _ = outputs()
        #expect(receivers(ofKeyframeFrom: 3, sequenceNumber: 1, at: .seconds(1)) == [1])
    }
}
