import CaucusCore
import CaucusJSON
import CaucusMedia
import CaucusProtocol
import CaucusStore
import NIOCore

/// The media loop's forwarding: one `SessionMediaRouter` per session with peers, fed by the
/// peer table's `onMedia` hook (decrypted RTP and RTCP) and by the sessions' handovers.
/// Confined to the media channel's loop, like the `MediaPeerTable` it sends through; what it
/// produces waits in `outbox` until the channel handler writes it.
final class MediaRouter {
    /// Unowned: the channel handler owns both, and the table's `onMedia` hook holds this router.
    private unowned let table: MediaPeerTable
    private let metrics: MediaMetrics
    private var sessions: [StoredSessionID: SessionMediaRouter] = [:]
    /// Datagrams to write (forwarded RTP, RTCP), taken by the channel handler.
    private var outbox: [(buffer: ByteBuffer, destination: TransportAddress)] = []

    init(table: MediaPeerTable, metrics: MediaMetrics) {
        self.table = table
        self.metrics = metrics
    }

    /// Hands each waiting datagram to `write` and empties the outbox, keeping its storage.
    func takeOutbox(_ write: (ByteBuffer, TransportAddress) -> Void) {
        for (buffer, destination) in outbox { write(buffer, destination) }
        outbox.removeAll(keepingCapacity: true)
    }

    // MARK: - Peers and sessions

    func addPeer(_ key: MediaPeerKey, plan: MediaSlotPlan) {
        let router = sessions[key.session] ?? SessionMediaRouter()
        sessions[key.session] = router
        perform(router.add(key.user.rawValue, plan: plan, now: MediaClock.now()), in: key.session)
    }

    func removePeer(_ key: MediaPeerKey) {
        guard let router = sessions[key.session] else { return }
        perform(router.remove(key.user.rawValue, now: MediaClock.now()), in: key.session)
    }

    func removeSession(_ session: StoredSessionID) {
        sessions[session] = nil
    }

    /// The session's latest "who may receive what" and its users' connections.
    func update(_ session: StoredSessionID, eligible: [Int: [PublishedStream]], connections: [Int: ClientConnection]) {
        guard let router = sessions[session] else { return }
        perform(router.update(eligible: eligible, connections: connections, now: MediaClock.now()), in: session)
    }

    // MARK: - Packets

    func receive(_ event: MediaPeerEvent, from key: MediaPeerKey) {
        guard let router = sessions[key.session] else { return }
        switch event {
        case .rtp(let packet):
            let keyframeRequests = router.forward(rtp: packet, arrival: MediaClock.now()) { subscriber, header, translation in
                let to = MediaPeerKey(session: key.session, user: UserID(subscriber))
                guard let datagram = table.protect(rtp: packet, rewrittenAs: header, translation: translation, for: to) else { return }
                outbox.append(datagram)
                metrics.rtpForwarded.increment()
                metrics.bytesForwarded.increment(by: datagram.buffer.readableBytes)
            }
            if !keyframeRequests.isEmpty { sendKeyframeRequests(keyframeRequests, in: key.session) }
        case .rtcp(let packet):
            let routed = router.route(rtcp: packet, from: key.user.rawValue, now: MediaClock.now())
            for (user, rtcp) in routed.rtcp {
                if let datagram = table.protect(rtcp: rtcp, for: MediaPeerKey(session: key.session, user: UserID(user))) {
                    append(datagram)
                }
            }
            for copy in routed.retransmissions {
                let to = MediaPeerKey(session: key.session, user: UserID(copy.subscriber))
                guard let datagram = table.protect(rtp: copy.packet, rewrittenAs: copy.header, translation: copy.translation, for: to)
                else { continue }
                outbox.append(datagram)
                metrics.retransmissions.increment()
            }
        case .connected, .closed:
            break
        }
    }

    private func perform(_ changes: SessionMediaRouter.Changes, in session: StoredSessionID) {
        sendKeyframeRequests(changes.keyframeRequests, in: session)
        if changes.slotSwitches > 0 { metrics.slotSwitches.increment(by: changes.slotSwitches) }
        for (connection, map) in changes.slotMaps {
            _ = connection.send(SessionActor.encode(.mediaSlots(map.slots, unplayable: map.unplayable), with: .caucus))
        }
    }

    private func sendKeyframeRequests(_ requests: [(publisher: Int, ssrc: UInt32)], in session: StoredSessionID) {
        metrics.keyframeRequests.increment(by: requests.count)
        for (publisher, ssrc) in requests {
            let pli = RTCPPacket.pictureLossIndication(senderSSRC: SessionMediaRouter.routerSSRC, mediaSSRC: ssrc).encoded()
            if let datagram = table.protect(rtcp: pli, for: MediaPeerKey(session: session, user: UserID(publisher))) {
                append(datagram)
            }
        }
    }

    private func append(_ datagram: AddressedDatagram) {
        outbox.append((ByteBuffer(bytes: datagram.bytes), datagram.destination))
    }
}
