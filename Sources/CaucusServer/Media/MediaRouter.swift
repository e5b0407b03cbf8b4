import CaucusCore
import CaucusJSON
import CaucusMedia
import CaucusSFU
import CaucusProtocol
import CaucusStore
import CoreMetrics
import NIOCore

/// The media loop's shell around forwarding: one `ForwardingEngine` per session with peers
/// (pure: packets, handovers and the time in, outputs out), fed by the shard's core with what
/// the peer table decrypted (`MediaShardCore`) and by the sessions' handovers. It does the engine's I/O:
/// copies and RTCP protected by the peer table, slot maps sent on the users' connections, the
/// engine's counts reported as metrics. Confined to the media channel's loop, like the
/// `MediaPeerTable` it sends through; datagrams wait in `outbox` until the channel handler
/// writes them.
final class MediaRouter {
    /// One session's engine and what only the shell knows: its users' connections, and the
    /// numbers its locations have in the engine.
    private final class Session {
        let engine: ForwardingEngine
        var connections: [Int: ClientConnection] = [:]
        var locationNumbers: [Location: Int] = [:]
        /// The engine's counts already reported as metrics.
        var reported = ForwardingCounters()
        /// Slot-map frames waiting for `releaseSlotMaps`, in order, while a handover's events
        /// are being sent (nil: frames go out at once).
        var heldFrames: [(connection: ClientConnection, frame: ByteBuffer)]?
        /// Its recording, from the first recording handover (`RecordingFeed`).
        var recorder: RecordingFeed?

        init(periodicInterval: Duration) {
            engine = ForwardingEngine(periodicInterval: periodicInterval)
        }

        func number(of location: Location) -> Int {
            if let known = locationNumbers[location] { return known }
            let number = locationNumbers.count
            locationNumbers[location] = number
            return number
        }
    }

    /// What protects the copies. The router calls the table; the table never calls the router
    /// (the core polls its media and hands it here), so neither holds the other both ways.
    private let table: MediaPeerTable
    private let metrics: MediaMetrics
    private var sessions: [StoredSessionID: Session] = [:]
    /// Sessions with users still waiting for their routing slice (a handover's, a new speaker
    /// order's, a peer's receivers').
    private var routingPending: Set<StoredSessionID> = []
    /// What one routing slice may cost, in (subscriber, eligible stream) pairs
    /// (`ServerConfiguration.mediaRoutingSlice`).
    private let routingSlice: Int
    /// Where recordings go and whom a stopped one is reported to.
    private let recording: RecordingContext
    /// The earliest of the engines' deadlines as last seen (`ForwardingEngine.nextDeadline`: a
    /// NACK to ask again, the periodic work): the channel handler wakes then for
    /// ``handleDeadlines(now:)``. Nil before any session has had a peer.
    private(set) var nextDeadline: Duration?
    /// Datagrams to write (forwarded RTP, RTCP), taken by the channel handler.
    private var outbox: [ForwardedDatagram] = []
    /// The outbox's bytes, back to back: one buffer (one allocation) for what a read batch
    /// sends, rather than one per datagram. The handler writes slices of it.
    private var outboxBytes = ByteBufferAllocator().buffer(capacity: MediaRouter.outboxCapacity)
    static let outboxCapacity = 16_384

    /// How often each session's engine does its periodic work (`ServerConfiguration.mediaTickInterval`).
    private let periodicInterval: Duration

    init(
        table: MediaPeerTable, metrics: MediaMetrics, routingSlice: Int, recording: RecordingContext,
        periodicInterval: Duration = ForwardingEngine.standardPeriodicInterval
    ) {
        self.recording = recording
        self.periodicInterval = periodicInterval
        self.table = table
        self.metrics = metrics
        self.routingSlice = routingSlice
    }

    /// Hands the waiting datagrams to `write`, with the buffer their bytes lie in (at each one's
    /// offset), and empties the outbox, keeping the list's storage.
    func takeOutbox(_ write: (_ datagrams: [ForwardedDatagram], _ bytes: ByteBuffer) -> Void) {
        guard !outbox.isEmpty else { return }
        write(outbox, outboxBytes)
        outbox.removeAll(keepingCapacity: true)
        // The slices hold the bytes until the socket has sent them: what comes next goes to
        // fresh storage (`clear` allocates it while they are shared, and reuses it once not).
        outboxBytes.clear()
    }

    // MARK: - Peers and sessions

    func addPeer(_ key: MediaPeerKey, plan: MediaSlotPlan, now: Duration) {
        let session = sessions[key.session] ?? Session(periodicInterval: periodicInterval)
        sessions[key.session] = session
        routing(session, key.session, now: now) { session.engine.addPeer(key.user.rawValue, plan: plan, now: now, slice: routingSlice) }
    }

    func removePeer(_ key: MediaPeerKey, now: Duration) {
        guard let session = sessions[key.session] else { return }
        routing(session, key.session, now: now) { session.engine.removePeer(key.user.rawValue, now: now, slice: routingSlice) }
    }

    func recomputations(of session: StoredSessionID) -> Int? { sessions[session]?.engine.recomputations }

    /// When the session's engine last did its periodic work (nil: never, or no such session).
    func lastPeriodicRun(of session: StoredSessionID) -> Duration? { sessions[session]?.engine.lastPeriodicRun }

    func removeSession(_ session: StoredSessionID, recordingStop reason: String = "ended", now: Duration) {
        sessions.removeValue(forKey: session)?.recorder?.stopAll(reason: reason, now: now)
        routingPending.remove(session)
    }

    /// Ends the session's recording with `reason`, its forwarding left as it is: the engine
    /// taps nothing more, and a later picture starts a new recording (``record(_:_:now:)``).
    func stopRecording(of id: StoredSessionID, reason: String, now: Duration) {
        guard let session = sessions[id], let recorder = session.recorder else { return }
        session.engine.record([])
        recorder.stopAll(reason: reason, now: now)
        session.recorder = nil
    }

    /// The session's recording picture (`RecordingFeed`): what is recorded, and who is where.
    func record(_ id: StoredSessionID, _ handover: RecordingHandover, now: Duration) {
        // A session with neither peers nor recording is not made for a picture recording nothing.
        guard sessions[id] != nil || !handover.picture.recorded.isEmpty else { return }
        let session = sessions[id] ?? Session(periodicInterval: periodicInterval)
        sessions[id] = session
        let recorder = session.recorder ?? RecordingFeed(session: id, context: recording)
        session.recorder = recorder
        recorder.update(handover, engine: session.engine, now: now)
        perform(session, id, now: now)
    }

    /// Ends every session's recording (the media port closes); the files end on the writer
    /// (`RecordingContext.writer`, which the transport drains).
    func stopRecording(now: Duration) {
        for session in sessions.values { session.recorder?.stopAll(reason: "serverStopped", now: now) }
    }

    /// The session's latest "who may receive what" for the users whose eligibility changed.
    /// `holdingSlotMaps`: forwarding (and any keyframe request) changes now, but the slot maps
    /// wait for `releaseSlotMaps`, which the session asks for once the events that explain
    /// them are queued on the users' connections; every slot map of the session waits with
    /// them, so a later one never overtakes an older one.
    ///
    /// Large handovers are recomputed in slices (`ForwardingEngine+SlicedRouting.swift`) with
    /// `continueRouting` between reads.
    func update(_ id: StoredSessionID, _ handover: MediaHandover, holdingSlotMaps: Bool = false, now: Duration) {
        guard let session = sessions[id] else { return }
        routing(session, id, now: now) {
            if holdingSlotMaps, session.heldFrames == nil { session.heldFrames = [] }
            var engineHandover = RoutingHandover()
            for (user, entry) in handover.users {
                session.connections[user] = entry.connection
                engineHandover.users[user] = RoutingHandover.Entry(
                    eligible: entry.eligible, location: entry.location.map(session.number(of:)),
                    channel: entry.connection.map(SignallingChannelID.init), pinned: entry.pinned)
            }
            session.engine.handle(engineHandover, now: now, slice: routingSlice)
        }
    }

    /// Whether a session still has users waiting for their routing slice (`continueRouting`).
    var hasPendingRouting: Bool { !routingPending.isEmpty }

    /// Recomputes the next slice of each session's waiting users.
    func continueRouting(now: Duration) {
        for id in routingPending {
            guard let session = sessions[id] else {
                routingPending.remove(id)
                continue
            }
            routing(session, id, now: now) { session.engine.continueRouting(now: now, slice: routingSlice) }
        }
    }

    /// A hold of the media loop by routing (forwarding on it waits meanwhile): `change` to the
    /// session's engine and what it asks done, timed; then whether users still wait for a slice.
    private func routing(_ session: Session, _ id: StoredSessionID, now: Duration, _ change: () -> Void) {
        let started = ContinuousClock.now
        change()
        perform(session, id, now: now)
        metrics.routingUpdateDuration.record(duration: ContinuousClock.now - started)
        notePendingRouting(of: session, id)
    }

    private func notePendingRouting(of session: Session, _ id: StoredSessionID) {
        if session.engine.isRoutingPending { routingPending.insert(id) } else { routingPending.remove(id) }
    }

    /// Sends the slot maps held since `update(_:_:holdingSlotMaps:)`, in order, one trip per
    /// connection loop.
    func releaseSlotMaps(_ id: StoredSessionID) {
        guard let session = sessions[id], let held = session.heldFrames else { return }
        session.heldFrames = nil
        var batches: [(connection: ClientConnection, frames: [ByteBuffer])] = []
        var index: [ObjectIdentifier: Int] = [:]
        for (connection, frame) in held {
            if let at = index[ObjectIdentifier(connection)] {
                batches[at].frames.append(frame)
            } else {
                index[ObjectIdentifier(connection)] = batches.count
                batches.append((connection, [frame]))
            }
        }
        _ = ClientConnection.send(batches)
    }

    // MARK: - Packets

    func receive(_ event: MediaPeerEvent, from key: MediaPeerKey, at now: Duration) {
        guard let session = sessions[key.session] else { return }
        switch event {
        case .rtp(let packet):
            session.engine.receive(rtp: packet, from: key.user.rawValue, at: now)
        case .rtcp(let packet): session.engine.receive(rtcp: packet, from: key.user.rawValue, at: now)
        case .connected: session.engine.peerConnected(key.user.rawValue, now: now)
        case .closed: return
        }
        perform(session, key.session, now: now)
    }

    /// What the engines have due by `now` (``nextDeadline``): in each session whose engine
    /// asked to be woken by then, its periodic work with the shell's own (the recording's
    /// keyframe requests, a large location's new speaker order recomputed in slices as a
    /// handover is: `continueRouting`), or only its repairs.
    func handleDeadlines(now: Duration) {
        defer { nextDeadline = earliestDeadline() }
        for (id, session) in sessions {
            guard let due = session.engine.nextDeadline, due <= now else { continue }
            guard session.engine.isPeriodicWorkDue(at: now) else {
                session.engine.handleDeadline(now: now)
                perform(session, id, now: now)
                continue
            }
            // Keyframes the recorders wait for: asked through the engine, paced with every other
            // request (the outputs go with the periodic work's below).
            for stream in session.recorder?.tick(now: now) ?? [] { session.engine.requestKeyframe(of: stream, now: now) }
            let (started, recomputations) = (ContinuousClock.now, session.engine.recomputations)
            session.engine.handleDeadline(now: now, slice: routingSlice)
            perform(session, id, now: now)
            // Periodic work that recomputed slots (a new speaker order, a layer) held the loop
            // for routing as a handover does: timed with them.
            if session.engine.recomputations != recomputations {
                metrics.routingUpdateDuration.record(duration: ContinuousClock.now - started)
            }
            notePendingRouting(of: session, id)
        }
    }

    private func noteDeadline(of session: Session) {
        guard let due = session.engine.nextDeadline else { return }
        nextDeadline = nextDeadline.map { min($0, due) } ?? due
    }

    private func earliestDeadline() -> Duration? {
        sessions.values.lazy.compactMap(\.engine.nextDeadline).min()
    }

    /// Does what `session`'s engine asks: copies and RTCP protected and queued, slot maps sent.
    private func perform(_ session: Session, _ id: StoredSessionID, now: Duration) {
        // Whatever the engine was given may have set an earlier deadline (a loss sets a repair's,
        // a session's first peer starts the periodic work).
        noteDeadline(of: session)
        // Counted here and added once: a counter's update per copy showed in the profile.
        var forwarded = 0
        var bytes = 0
        session.engine.pollOutput { output in
            switch output {
            case .copy(let copy, let purpose):
                let to = MediaPeerKey(session: id, user: UserID(copy.subscriber))
                guard
                    let datagram = table.protect(
                        rtp: copy.packet, rewrittenAs: copy.header, translation: copy.translation, retransmittedAs: copy.retransmittedAs,
                        transportSequence: copy.transportSequence, for: to, into: &outboxBytes)
                else { return }
                outbox.append(datagram)
                switch purpose {
                case .forward:
                    forwarded += 1
                    bytes += datagram.length
                case .repair: metrics.retransmissions.increment()
                case .probe: metrics.probePackets.increment()
                case .closing: break
                }
            case .rtcp(let user, let packet, let purpose):
                switch purpose {
                case .keyframeRequest: metrics.keyframeRequests.increment()
                case .nack: metrics.upstreamNACKs.increment()
                case .report: break
                }
                if let datagram = table.protect(rtcp: packet, for: MediaPeerKey(session: id, user: UserID(user))) {
                    let offset = outboxBytes.writerIndex
                    outboxBytes.writeBytes(datagram.bytes)
                    outbox.append(ForwardedDatagram(
                        offset: offset, length: datagram.bytes.count, destination: datagram.destination,
                        socketAddress: datagram.destination.socketAddress))
                }
            case .slotMap(let user, let map, let speakers):
                guard let connection = session.connections[user] else { return }
                let slots = map.slots.map { slot in MediaSlot(mid: slot.mid, kind: slot.kind.rawValue, user: slot.publisher.map { UserID($0) }) }
                let unplayable = map.unplayable.map { UnplayableMedia(user: UserID($0.publisher), kind: $0.kind.rawValue, reason: .codec) }
                let frame = SessionActor.encode(
                    ServerFrame.mediaSlots(slots, unplayable: unplayable, activeSpeakers: speakers.map { $0.map { UserID($0) } }), with: .caucus)
                if session.heldFrames != nil {
                    session.heldFrames!.append((connection, frame))
                } else {
                    _ = connection.send(frame)
                }
            case .record(let media):
                if case .speakers(let number, let order) = media {
                    guard let location = session.locationNumbers.first(where: { $0.value == number })?.key else { return }
                    session.recorder?.speakers(order, in: SessionActor.recordingLocation(location), now: now)
                } else {
                    session.recorder?.receive(media, now: now)
                }
            }
        }
        if forwarded > 0 {
            metrics.rtpForwarded.increment(by: forwarded)
            metrics.bytesForwarded.increment(by: bytes)
        }
        let counters = session.engine.counters
        if counters != session.reported {
            metrics.routingRecomputations.increment(by: counters.recomputations - session.reported.recomputations)
            metrics.slotSwitches.increment(by: counters.slotSwitches - session.reported.slotSwitches)
            session.reported = counters
        }
    }
}
