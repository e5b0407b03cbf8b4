import CaucusCore
import CaucusMedia
import CaucusRecording
import CaucusSFU
import CaucusStore
import Logging

/// The shard core as the allocation benchmark drives it (`Benchmarks/`, a package of its own,
/// which sees only what a module exports): an SPI for that benchmark, not API. Each call is one
/// the channel handler or `MediaTransport` makes, with the same types behind it.
extension MediaShardCore {
    /// A shard with metrics of its own (no-ops unless the process bootstraps swift-metrics) and
    /// no recording folder: nothing it does here writes a file.
    @_spi(Benchmarks) public static func detached(routingSlice: Int) -> MediaShardCore {
        let metrics = MediaMetrics()
        let recording = RecordingContext(
            layout: RecordingLayout(dataDirectory: "/nonexistent"), quota: RecordingQuota(limit: nil), logger: Logger(label: "caucus.bench"))
        return MediaShardCore(table: MediaPeerTable(metrics: metrics), metrics: metrics, routingSlice: routingSlice, recording: recording)
    }

    /// `addPeer(_:for:ssrcs:plan:now:)` for `user` of the session numbered `session` (the
    /// store's number: `CaucusStore` is no product of the package).
    @_spi(Benchmarks) public func addPeer(
        _ peer: MediaPeer, session: Int64, user: Int, ssrcs: Set<UInt32>, plan: MediaSlotPlan, now: Duration
    ) -> [AddressedDatagram] {
        addPeer(peer, for: MediaPeerKey(session: StoredSessionID(rawValue: session), user: UserID(user)), ssrcs: ssrcs, plan: plan, now: now)
    }

    /// A session's handover naming each user's location and what it may receive (no signalling
    /// connection: its slot maps go nowhere).
    @_spi(Benchmarks) public func route(
        _ session: Int64, _ users: [Int: (location: Location, eligible: [PublishedStream])], now: Duration
    ) {
        var handover = MediaHandover()
        for (user, entry) in users {
            handover.users[user] = MediaHandover.Entry(eligible: entry.eligible, location: entry.location, connection: nil)
        }
        router.update(StoredSessionID(rawValue: session), handover, now: now)
    }

    /// `receive(datagram:from:at:)`, for the benchmark.
    @_spi(Benchmarks) public func receiveDatagram(_ datagram: inout [UInt8], from source: TransportAddress, at now: Duration) -> [AddressedDatagram]? {
        receive(datagram: &datagram, from: source, at: now)
    }

    /// Empties the outbox as the channel handler does (`takeOutbox`), handing `body` the number
    /// of datagrams and their bytes' total; nothing is sent.
    @_spi(Benchmarks) public func drainOutbox(_ body: (_ datagrams: Int, _ bytes: Int) -> Void) {
        takeOutbox { datagrams, bytes in body(datagrams.count, bytes.readableBytes) }
    }

    /// The outbox's datagrams, copied out (setting up, not measured; and the in-memory shard
    /// of `MediaShardCoreTests`, which puts them on its wire).
    @_spi(Benchmarks) public func takeOutboxDatagrams() -> [AddressedDatagram] {
        var forwarded: [AddressedDatagram] = []
        takeOutbox { datagrams, bytes in
            for datagram in datagrams {
                guard let slice = bytes.getBytes(at: datagram.offset, length: datagram.length) else { continue }
                forwarded.append(AddressedDatagram(bytes: slice, destination: datagram.destination))
            }
        }
        return forwarded
    }
}
