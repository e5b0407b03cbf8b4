import CaucusCore
import CaucusJSON
import CaucusMedia
import CaucusProtocol
import CaucusStore
import CoreMetrics
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

    func recomputations(of session: StoredSessionID) -> Int? { sessions[session]?.recomputations }

    func removeSession(_ session: StoredSessionID) {
        sessions[session] = nil
    }

    /// The session's latest "who may receive what" for the users whose eligibility changed.
    func update(_ session: StoredSessionID, _ handover: MediaHandover) {
        guard let router = sessions[session] else { return }
        perform(router.update(handover, now: MediaClock.now()), in: session)
    }

    // MARK: - Packets

    func receive(_ event: MediaPeerEvent, from key: MediaPeerKey) {
        guard let router = sessions[key.session] else { return }
        switch event {
        case .rtp(let received):
            let arrival = MediaClock.now()
            // Every packet counts for the publisher's congestion control, probes included.
            router.recordTransportSequence(of: received, from: key.user.rawValue, at: arrival)
            if !router.simulcast.isEmpty, let changes = router.observeSimulcast(received, from: key.user.rawValue, now: arrival) {
                perform(changes, in: key.session)
            }
            guard let packet = router.restoringRetransmission(received) else { return }
            let feedback = router.forward(rtp: packet, arrival: arrival) { subscriber, header, translation in
                let to = MediaPeerKey(session: key.session, user: UserID(subscriber))
                let transportSequence = router.transportSequence(to: subscriber, size: packet.count, translation: translation, at: arrival)
                guard
                    let datagram = table.protect(
                        rtp: packet, rewrittenAs: header, translation: translation, transportSequence: transportSequence, for: to)
                else { return }
                outbox.append(datagram)
                metrics.rtpForwarded.increment()
                metrics.bytesForwarded.increment(by: datagram.buffer.readableBytes)
            }
            if !feedback.isEmpty { send(feedback, in: key.session) }
        case .rtcp(let packet):
            let routed = router.route(rtcp: packet, from: key.user.rawValue, now: MediaClock.now())
            send(routed.rtcp, in: key.session)
            send(routed.retransmissions, in: key.session, counter: metrics.retransmissions)
        case .connected, .closed:
            break
        }
    }

    /// The routers' timers: lost publisher packets asked for again, simulcast layers ranked,
    /// downlinks probed and their layers chosen, speakers ranked.
    func tick(now: Duration) {
        for (session, router) in sessions {
            let feedback = router.tick(now: now)
            if !feedback.isEmpty { send(feedback, in: session) }
            if let changes = router.rankSimulcastLayers(now: now) { perform(changes, in: session) }
            let (probes, layerChanges) = router.tickDownlinks(now: now)
            send(probes, in: session, counter: metrics.probePackets)
            if let layerChanges { perform(layerChanges, in: session) }
            if !router.rankings.isEmpty { perform(router.evaluateSpeakers(now: now), in: session) }
        }
    }

    /// Copies of cached packets (repairs, probes), each counted.
    private func send(_ copies: [SessionMediaRouter.Copy], in session: StoredSessionID, counter: CoreMetrics.Counter) {
        for copy in copies {
            let to = MediaPeerKey(session: session, user: UserID(copy.subscriber))
            guard
                let datagram = table.protect(
                    rtp: copy.packet, rewrittenAs: copy.header, translation: copy.translation, retransmittedAs: copy.retransmittedAs,
                    transportSequence: copy.transportSequence, for: to)
            else { continue }
            outbox.append(datagram)
            counter.increment()
        }
    }

    /// RTCP the router produced for users (NACKs and keyframe requests to publishers).
    private func send(_ feedback: [(user: Int, rtcp: [UInt8])], in session: StoredSessionID) {
        for (user, rtcp) in feedback {
            // Counted by RTCP packet type: 206 payload-specific feedback (PLI), 205 transport
            // feedback format 1 (NACK); transport-cc feedback (205, format 15) and sender reports
            // go uncounted.
            switch rtcp.count > 1 ? rtcp[1] : 0 {
            case 206: metrics.keyframeRequests.increment()
            case 205 where rtcp[0] & 0x1F == 1: metrics.upstreamNACKs.increment()
            default: break
            }
            if let datagram = table.protect(rtcp: rtcp, for: MediaPeerKey(session: session, user: UserID(user))) { append(datagram) }
        }
    }

    private func perform(_ changes: SessionMediaRouter.Changes, in session: StoredSessionID) {
        if changes.recomputed > 0 { metrics.routingRecomputations.increment(by: changes.recomputed) }
        send(changes.keyframeRequests.map { ($0.publisher, SessionMediaRouter.pli($0.ssrc)) }, in: session)
        if changes.slotSwitches > 0 { metrics.slotSwitches.increment(by: changes.slotSwitches) }
        // Who speaks, each with the slot map that follows from it.
        for (connection, speakers, map) in changes.activeSpeakers {
            _ = connection.send(SessionActor.encode(.mediaSlots(map.slots, unplayable: map.unplayable, activeSpeakers: speakers), with: .caucus))
        }
        for (connection, map) in changes.slotMaps {
            _ = connection.send(SessionActor.encode(.mediaSlots(map.slots, unplayable: map.unplayable), with: .caucus))
        }
    }

    private func append(_ datagram: AddressedDatagram) {
        outbox.append((ByteBuffer(bytes: datagram.bytes), datagram.destination))
    }
}
