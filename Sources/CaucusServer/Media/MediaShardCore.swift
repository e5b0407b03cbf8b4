import CaucusMedia
import CaucusSFU
import CaucusStore
import NIOCore

/// One media shard without its socket: the peers (`MediaPeerTable`: ICE, DTLS, SRTP) and the
/// sessions' forwarding (`MediaRouter`) behind datagrams and the time in, datagrams out. It
/// reads no clock: every call takes the time, and the router's own calls (handovers, routing
/// slices, recording) take it too, so a test runs a shard on a clock of its own.
///
/// The core is the only thing that calls both: it hands the router what the table decrypted
/// (`MediaPeerTable.pollMedia`), and the router protects its copies through the table. Neither
/// calls the other back, so a test drives a whole shard in memory (`MediaShardCoreTests`), and
/// the channel handler only moves datagrams between the core and the socket.
///
/// Confined to one event loop, like the table and the router it owns.
@_spi(Benchmarks) public final class MediaShardCore {
    let table: MediaPeerTable
    let router: MediaRouter

    /// `periodicInterval`: how often each session's engine does its periodic work
    /// (`ServerConfiguration.mediaTickInterval`).
    init(
        table: MediaPeerTable, metrics: MediaMetrics, routingSlice: Int, recording: RecordingContext,
        periodicInterval: Duration = ForwardingEngine.standardPeriodicInterval
    ) {
        self.table = table
        self.router = MediaRouter(
            table: table, metrics: metrics, routingSlice: routingSlice, recording: recording, periodicInterval: periodicInterval)
    }

    // MARK: - Datagrams and time

    /// A datagram from `source`: its peer's answers (ICE, DTLS) to send, or nil when no peer of
    /// this shard claims it (and `datagram` is as it was). What it carries for the router
    /// (media, a connection) reaches the router before this returns; the copies wait in the
    /// outbox (`takeOutbox`). Media is decrypted in place (`MediaPeerTable.receive`): once
    /// claimed, `datagram` holds the packet, or unspecified bytes when it was refused.
    func receive(datagram: inout [UInt8], from source: TransportAddress, at now: Duration) -> [AddressedDatagram]? {
        guard let replies = table.receive(&datagram, from: source, now: now) else { return nil }
        deliverMedia(at: now)
        return replies
    }

    /// What the engines have due by `now`: their periodic work (feedback, probes, layers,
    /// speakers, repairs) or their repairs alone (`MediaRouter.handleDeadlines`). The channel
    /// handler calls it at ``nextEngineDeadline``.
    func handleEngineDeadlines(now: Duration) {
        router.handleDeadlines(now: now)
    }

    /// When the engines next need ``handleEngineDeadlines(now:)``; nil before any session has had
    /// a peer.
    var nextEngineDeadline: Duration? { router.nextDeadline }

    /// The peers' deadlines (DTLS retransmissions, consent), swept by the channel handler every
    /// `mediaTickInterval`; returns the peers' datagrams.
    func handlePeerDeadlines(now: Duration) -> [AddressedDatagram] {
        let datagrams = table.handleDeadlines(now: now)
        deliverMedia(at: now)
        return datagrams
    }

    /// Both at once, for a test that moves its own clock: the engines' deadlines, then the
    /// peers'; returns the peers' datagrams.
    func handleTimeout(now: Duration) -> [AddressedDatagram] {
        handleEngineDeadlines(now: now)
        return handlePeerDeadlines(now: now)
    }

    /// Hands the waiting copies and RTCP to `write` (see `MediaRouter.takeOutbox`).
    func takeOutbox(_ write: (_ datagrams: [ForwardedDatagram], _ bytes: ByteBuffer) -> Void) {
        router.takeOutbox(write)
    }

    // MARK: - Peers and sessions

    /// Installs `peer` for `key` in the table and its plan in the router, replacing the peer
    /// it had; returns the replaced peer's close_notify to send.
    func addPeer(
        _ peer: MediaPeer, for key: MediaPeerKey, number: UInt64 = 0, ssrcs: Set<UInt32> = [], plan: MediaSlotPlan, now: Duration
    ) -> [AddressedDatagram] {
        let replaced = table.add(peer, for: key, number: number, ssrcs: ssrcs, now: now)
        router.addPeer(key, plan: plan, now: now)
        return replaced
    }

    /// Closes `key`'s peer and takes it out of its session's routing; returns its close_notify.
    func removePeer(_ key: MediaPeerKey, now: Duration) -> [AddressedDatagram] {
        let closing = table.remove(key, now: now)
        router.removePeer(key, now: now)
        return closing
    }

    /// Closes every peer of an ended session and forgets its routing.
    func removeSession(_ session: StoredSessionID, recordingStop reason: String = "ended", now: Duration) -> [AddressedDatagram] {
        let closing = table.removeSession(session, now: now)
        router.removeSession(session, recordingStop: reason, now: now)
        return closing
    }

    // MARK: - Private

    private func deliverMedia(at now: Duration) {
        let router = self.router
        table.pollMedia { key, event in router.receive(event, from: key, at: now) }
    }
}
