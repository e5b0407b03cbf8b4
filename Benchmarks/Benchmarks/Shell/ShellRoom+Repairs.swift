import CaucusMedia
@_spi(Benchmarks) import CaucusServer

/// A subscriber's NACKs answered from the retransmission cache, shell included: the NACK's
/// SRTCP removed, the RTCP read, the repair found, rewritten for the subscriber's slot and
/// protected into the outbox.
extension ShellRoom {
    /// The first subscriber's NACKs, protected by its client, each for one of the next `count`
    /// copies its slot gets (in order; ``answer(_:)`` one after each ``forward(_:)``).
    func nacksOfTheFirstSubscriber(forTheNext count: Int) throws -> [[UInt8]] {
        let slot = try watchedSlot ?? watchFirstSubscriber()
        watchedSlot = (slot.ssrc, slot.next &+ UInt16(truncatingIfNeeded: count))
        return (0..<count).map { index in
            let nack = RTCPGenericNACK(senderSSRC: 0xB0B0_0001, mediaSSRC: slot.ssrc, lost: [slot.next &+ UInt16(truncatingIfNeeded: index)])
            return clients[1].protect(rtcp: RTCPPacket.genericNACK(nack).encoded())!.bytes
        }
    }

    /// The first subscriber's NACK into the core, and the repairs it sends emptied from the
    /// outbox, as the channel handler does.
    @inline(__always)
    func answer(_ nack: [UInt8]) {
        enter(nack, from: firstSubscriberAddress)
        core.drainOutbox { datagrams, _ in repairs += datagrams }
    }

    /// Finds which of the first subscriber's slots carries the publisher, and at which number:
    /// one packet in, and the copy its client decrypts. (Setting up, not measured.)
    private func watchFirstSubscriber() throws -> (ssrc: UInt32, next: UInt16) {
        enter(publish(1)[0], from: Self.address(of: 0))
        for datagram in core.takeOutboxDatagrams() where datagram.destination == Self.address(of: 1) {
            for case .rtp(let bytes) in clients[1].receive(datagram.bytes, from: Self.serverAddress, now: now).events {
                let packet = try RTPPacket(decoding: bytes)
                return (packet.ssrc, packet.sequenceNumber &+ 1)
            }
        }
        throw ShellRoomError(message: "the first subscriber got no copy of the publisher's packet")
    }
}
