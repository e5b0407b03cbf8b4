import CaucusMedia

/// RTX (RFC 4588) on both sides of the router. A publisher that negotiated RTX sends its
/// repairs on its RTX SSRC; the router restores each to the original packet before anything
/// else sees it, so a repair is cached, ends an upstream NACK and fills the subscribers' gaps
/// like the late packet it is — unless the router holds that packet already: then the RTX
/// packet is a copy nobody needs (Chromium pads its bandwidth probes with RTX copies of what it
/// sent moments ago, hundreds a second), and it goes no further; a subscriber that lost the
/// original asks for it and is repaired from the cache. Towards a subscriber whose slot
/// negotiated RTX, repairs from the cache leave on the slot's RTX stream (`Subscriber.retransmissionStreams`) — until its own
/// NACKs or reports show that it drops them (``RetransmissionAcceptance``); then on the slot's own SSRC.
extension ForwardingEngine {
    /// The packet to route for a publisher's `packet`: itself, or the original inside an RTX
    /// packet; nil for an RTX packet that carries none (a bandwidth probe's padding) or that
    /// carries a packet the retransmission cache already holds (a probe's padding made of copies,
    /// or a repair that came after the original after all): forwarded, it would reach every
    /// subscriber of the stream again.
    func restoringRetransmission(_ packet: [UInt8]) -> [UInt8]? {
        guard packet.count >= 12, let source = retransmissionSources.source(of: Self.read32(packet, at: 8)) else { return packet }
        guard let original = RTXPacket.unwrap(packet, mediaSSRC: source.mediaSSRC, mediaPayloadType: source.mediaPayloadType)
        else { return nil }
        let sequenceNumber = UInt16(original[2]) << 8 | UInt16(original[3])
        // By index: optional chaining through the dictionary would copy the track.
        if let track = upTracks.index(forKey: source.mediaSSRC), upTracks.values[track].repair?.cache.packet(sequenceNumber) != nil {
            return nil
        }
        return original
    }

    /// The RTX header for the next repair on `user`'s `slot`, advancing that stream's numbers;
    /// nil when the slot did not negotiate RTX (the repair goes on the slot's own SSRC).
    func nextRetransmission(to user: Int, in slot: SlotID) -> RTXEncapsulation? {
        guard let current = subscribers[user]?.retransmissionStreams[slot] else { return nil }
        subscribers[user]!.retransmissionStreams[slot]!.sequenceNumber &+= 1
        return current
    }

    /// Judges, by a subscriber's NACK, whether it takes the RTX repairs sent to it.
    func judgeRetransmissions(
        of subscriber: Subscriber, nackedOn ssrc: UInt32, lost: some Sequence<UInt16>, from user: Int, at now: Duration,
        into routed: inout RoutedRTCP
    ) {
        guard subscriber.retransmissionAcceptance.nacked(ssrc: ssrc, lost: lost, at: now) else { return }
        afterJudging(subscriber, user: user, at: now, into: &routed)
    }

    /// Judges, by the blocks of `user`'s receiver or sender report, whether it takes the RTX
    /// repairs sent to it (nothing to do once that is known).
    func judgeRetransmissions(of user: Int, byReport blocks: [RTCPReportBlock], at now: Duration, into routed: inout RoutedRTCP) {
        guard !blocks.isEmpty, let subscriber = subscribers[user], subscriber.retransmissionAcceptance.verdict == .undecided,
            subscriber.retransmissionAcceptance.reported(about: blocks.map(\.ssrc), at: now)
        else { return }
        afterJudging(subscriber, user: user, at: now, into: &routed)
    }

    /// Once a subscriber is known to drop RTX repairs, its slots have no RTX stream any more:
    /// repairs go on each slot's own SSRC, it is not probed with RTX repeats it would drop,
    /// and the repairs it was sent on RTX and may still wait for are sent again, as if it had
    /// asked for them (a stack that asks once, aiortc, would otherwise wait behind each gap).
    private func afterJudging(_ subscriber: Subscriber, user: Int, at now: Duration, into routed: inout RoutedRTCP) {
        guard !subscriber.retransmissionAcceptance.sendsRetransmissions else { return }
        subscriber.retransmissionStreams = [:]
        for (ssrc, lost) in subscriber.retransmissionAcceptance.takeUnconfirmedRepairs() {
            answer(ssrc, lost: lost, from: user, now: now, into: &routed)
        }
    }
}
