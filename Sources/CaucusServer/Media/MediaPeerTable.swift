import CaucusMedia
import CaucusSFU
import CaucusStore
import NIOCore

/// Every media peer of one datagram channel, and the demultiplexing that finds a datagram's
/// peer: a STUN binding request by its USERNAME's first half (the server's ufrag for that
/// peer), anything else by its source address once that address passed an ICE check.
///
/// Confined to the channel's event loop (it owns `MediaPeer`s, which own BoringSSL state):
/// `MediaTransport` reaches it only through `NIOLoopBound`. Pure apart from the metrics: it
/// returns the datagrams to send and never touches the channel.
final class MediaPeerTable {
    /// One peer and what the shell keeps beside it.
    final class Entry {
        let key: MediaPeerKey
        let peer: MediaPeer
        /// The number its answer gave it (`MediaAnswer.peer`).
        let number: UInt64
        let createdAt: Duration
        /// Source addresses that reached this peer's ICE agent with a valid check.
        var addresses: Set<TransportAddress> = []
        var ssrcs: Set<UInt32> = []
        var isConnected = false
        var rtpReceived = 0
        var rtcpReceived = 0
        /// The peer's drop and SRTP-failure totals already added to the metrics.
        var droppedReported = 0
        var srtpFailuresReported = 0
        /// The socket address of the peer's path, made once per path rather than per packet
        /// (NIO boxes each `SocketAddress` it is given).
        var socketAddress: (path: TransportAddress, address: SocketAddress)?

        func socketAddress(of path: TransportAddress) -> SocketAddress {
            if let socketAddress, socketAddress.path == path { return socketAddress.address }
            let address = path.socketAddress
            socketAddress = (path, address)
            return address
        }

        init(key: MediaPeerKey, peer: MediaPeer, number: UInt64, createdAt: Duration) {
            self.key = key
            self.peer = peer
            self.number = number
            self.createdAt = createdAt
        }
    }

    /// What the server can tell about a peer (tests and logs).
    struct Stats: Sendable, Equatable {
        var isConnected: Bool
        var closeReason: MediaPeerCloseReason?
        var rtpReceived: Int
        var rtcpReceived: Int
        var counters: MediaPeerCounters
    }

    /// Decrypted media and each peer's connection, in arrival order, until `pollMedia` takes
    /// them (the shard's core hands them to its router). The table knows nothing of the router:
    /// it is called, and never calls back.
    private var media: [(key: MediaPeerKey, event: MediaPeerEvent)] = []
    /// What a peer produces for one datagram (`receive`): kept, with its arrays' capacity, from
    /// datagram to datagram.
    private var output = MediaPeerOutput()
    /// Told of each peer that connects (true) or ends on its own (false; not closed by the
    /// server), with its number.
    var onLife: ((MediaPeerKey, UInt64, Bool) -> Void)?

    private var byKey: [MediaPeerKey: Entry] = [:]
    private var byUfrag: [String: Entry] = [:]
    private var byAddress: [TransportAddress: Entry] = [:]
    /// The SSRCs each peer's offer says it sends from: media from an address no check has
    /// reached yet (a NAT rebinding) finds its peer by them, which then decides, by SRTP,
    /// whether it is really its own. The first offer to name an SSRC keeps it.
    private var bySSRC: [UInt32: Entry] = [:]
    /// The same per session, where no two users may send from one SSRC (`ssrcSentByAnother`):
    /// an offer's check is a lookup per SSRC it names, not a walk of every peer. Sessions may
    /// share SSRCs, so `bySSRC` (one peer an SSRC) cannot answer it.
    private var bySessionSSRC: [SessionSSRC: Entry] = [:]
    /// Peers that closed on their own, kept for `stats` until replaced or dropped.
    private var closed: [MediaPeerKey: Stats] = [:]
    private let metrics: MediaMetrics
    /// Datagrams no peer claimed.
    private(set) var unclaimed = 0

    init(metrics: MediaMetrics) {
        self.metrics = metrics
    }

    var count: Int { byKey.count }

    // MARK: - Peers coming and going

    /// One of `ssrcs` that another user's peer in `key`'s session sends from, if any (the
    /// lowest). A session's streams are told apart by SSRC: an offer naming one another user
    /// sends from would otherwise take that user's stream, or be dropped in its place.
    func ssrcSentByAnother(of ssrcs: Set<UInt32>, for key: MediaPeerKey) -> UInt32? {
        ssrcs.filter { ssrc in
            guard let sender = bySessionSSRC[SessionSSRC(session: key.session, ssrc: ssrc)] else { return false }
            return sender.key.user != key.user
        }.min()
    }

    /// Installs `peer` for `key`, closing the one it replaces; returns the replaced peer's
    /// close_notify to send. `ssrcs` are those its offer sends from; `number` names it in
    /// `onLife`.
    func add(_ peer: MediaPeer, for key: MediaPeerKey, number: UInt64 = 0, ssrcs: Set<UInt32> = [], now: Duration) -> [AddressedDatagram] {
        let replaced = remove(key, now: now)
        closed[key] = nil
        let entry = Entry(key: key, peer: peer, number: number, createdAt: now)
        entry.ssrcs = ssrcs
        byKey[key] = entry
        byUfrag[peer.localCredentials.ufrag] = entry
        for ssrc in ssrcs where bySSRC[ssrc] == nil { bySSRC[ssrc] = entry }
        for ssrc in ssrcs {
            let named = SessionSSRC(session: key.session, ssrc: ssrc)
            if bySessionSSRC[named] == nil { bySessionSSRC[named] = entry }
        }
        return replaced
    }

    /// Closes and forgets `key`'s peer, if any (the user left, or a new offer replaces it).
    func remove(_ key: MediaPeerKey, now: Duration) -> [AddressedDatagram] {
        closed[key] = nil
        guard let entry = byKey[key] else { return [] }
        let output = entry.peer.close(now: now)
        forget(entry)
        return output.datagrams
    }

    /// Closes every peer of a session (it ended).
    func removeSession(_ session: StoredSessionID, now: Duration) -> [AddressedDatagram] {
        let keys = byKey.keys.filter { $0.session == session } + closed.keys.filter { $0.session == session }
        return keys.flatMap { remove($0, now: now) }
    }

    /// Closes every peer (the server stops).
    func removeAll(now: Duration) -> [AddressedDatagram] {
        Array(byKey.keys).flatMap { remove($0, now: now) }
    }

    func stats(for key: MediaPeerKey) -> Stats? {
        if let entry = byKey[key] {
            return Stats(
                isConnected: entry.isConnected, closeReason: nil, rtpReceived: entry.rtpReceived,
                rtcpReceived: entry.rtcpReceived, counters: entry.peer.counters)
        }
        return closed[key]
    }

    // MARK: - Datagrams and time

    /// Hands a datagram to its peer; returns what to send, or nil when no peer of this table
    /// claims it (the channel handler may then hand it to another loop's table).
    ///
    /// Media is decrypted in place in `datagram`, whose storage the event shares: when the
    /// caller's array is its own (the channel handler's, reused for every datagram), a datagram
    /// costs no allocation. The engine copies what it keeps (the retransmission cache); should
    /// anything keep the packet itself, the caller's next write takes new storage
    /// (copy-on-write), never the kept bytes.
    func receive(_ datagram: inout [UInt8], from source: TransportAddress, now: Duration) -> [AddressedDatagram]? {
        guard let (entry, known) = owner(of: datagram, from: source) else { return nil }
        // Emptied after use too, so that no event holds the caller's bytes past this call.
        defer { output.events.removeAll(keepingCapacity: true) }
        output.datagrams.removeAll(keepingCapacity: true)
        entry.peer.receive(&datagram, from: source, now: now, into: &output)
        // An address found in `byAddress` is one of the entry's already (they change together).
        // One that another peer holds moves here, and out of that peer's set: a check from it
        // (another peer's own, its source forged) must not keep the address away from its
        // owner, whose next check from it takes it back.
        if !known, byAddress[source] !== entry, entry.peer.hasConsent(from: source, at: now) {
            byAddress[source]?.addresses.remove(source)
            entry.addresses.insert(source)
            byAddress[source] = entry
        }
        handle(output.events, of: entry, now: now)
        // Media has no answer: an empty array allocates nothing.
        return output.datagrams.isEmpty ? [] : output.datagrams
    }

    /// Hands each waiting media event to `body`, oldest first, and empties the queue (keeping
    /// its storage: a datagram's event costs no allocation of the queue's). Read by index, so
    /// an event queued while `body` runs (were it ever to hand the table a datagram) is handed
    /// on too, never dropped.
    func pollMedia(_ body: (MediaPeerKey, MediaPeerEvent) -> Void) {
        guard !media.isEmpty else { return }
        var index = 0
        while index < media.count {
            let (key, event) = media[index]
            body(key, event)
            index += 1
        }
        media.removeAll(keepingCapacity: true)
    }

    /// Counts a datagram no table claimed.
    func countUnclaimed() {
        unclaimed += 1
        metrics.datagramsDropped.increment()
    }

    /// Runs every peer whose deadline has come (DTLS retransmissions, consent, setup time).
    func handleDeadlines(now: Duration) -> [AddressedDatagram] {
        var datagrams: [AddressedDatagram] = []
        for entry in byKey.values {
            guard let deadline = entry.peer.nextDeadline, deadline <= now else { continue }
            let output = entry.peer.handleTimeout(now: now)
            handle(output.events, of: entry, now: now)
            datagrams += output.datagrams
        }
        return datagrams
    }

    /// A forwarded packet for `key`'s peer: `packet` with `header`'s fields and renumbered by
    /// `translation` (with the subscriber's transport-wide number where it has one), and wrapped
    /// for the RTX stream `retransmittedAs` names if any, protected, written once at the end of
    /// `outbox` (no intermediate copies, no buffer of its own); nil, and `outbox` as it was, when
    /// the peer is not connected or the translation finds nothing it can decode (malformed RED).
    func protect(
        rtp packet: [UInt8], rewrittenAs header: RewrittenHeader, translation: HeaderTranslation,
        retransmittedAs rtx: RTXEncapsulation? = nil, transportSequence: UInt16? = nil, for key: MediaPeerKey,
        into outbox: inout ByteBuffer
    ) -> ForwardedDatagram? {
        guard let entry = byKey[key], let tagLength = entry.peer.profile?.tagLength else { return nil }
        let peer = entry.peer
        // Room for the tag, and for the OSN an RTX packet adds.
        let room = packet.count + tagLength + (rtx == nil ? 0 : 2)
        let offset = outbox.writerIndex
        outbox.reserveCapacity(minimumWritableBytes: room)
        let protected = outbox.withUnsafeMutableWritableBytes { writable -> (length: Int, destination: TransportAddress, ssrc: UInt32)? in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: writable[..<room])
            packet.withUnsafeBytes { bytes.copyMemory(from: $0) }
            UnsafeMutableRawBufferPointer(rebasing: bytes[packet.count...]).initializeMemory(as: UInt8.self, repeating: 0)
            header.write(into: bytes)
            guard var length = translation.apply(to: bytes, length: packet.count, transportSequence: transportSequence) else { return nil }
            if let rtx {
                guard let wrapped = RTXPacket.wrap(bytes, length: length, as: rtx) else { return nil }
                length = wrapped
            }
            guard let (protected, destination) = peer.protect(rtp: bytes, length: length) else { return nil }
            // The SSRC it leaves on (the RTX stream's, where wrapped): SRTP leaves the header in
            // clear, and a packet it protected has one.
            return (protected, destination, bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian)
        }
        guard let (length, destination, ssrc) = protected else { return nil }
        outbox.moveWriterIndex(forwardBy: length)
        return ForwardedDatagram(
            offset: offset, length: length, destination: destination, socketAddress: entry.socketAddress(of: destination), stream: ssrc)
    }

    /// Protects RTCP for `key`'s peer (the router's keyframe requests); nil when it is not connected.
    func protect(rtcp packet: [UInt8], for key: MediaPeerKey) -> AddressedDatagram? {
        byKey[key]?.peer.protect(rtcp: packet)
    }

    // MARK: - Private

    /// The datagram's peer, and whether it was found by a source address a check reached.
    private func owner(of datagram: [UInt8], from source: TransportAddress) -> (Entry, known: Bool)? {
        let kind = DatagramKind(classifying: datagram)
        if kind == .stun, let username = (try? DecodedSTUNMessage(decoding: datagram))?.message.username,
            let ufrag = username.split(separator: ":", maxSplits: 1).first
        {
            return byUfrag[String(ufrag)].map { ($0, false) }
        }
        if let entry = byAddress[source] { return (entry, true) }
        let namedSSRC: Entry?
        switch kind {
        case .rtp where datagram.count >= 12: namedSSRC = bySSRC[ForwardingEngine.read32(datagram, at: 8)]
        case .rtcp where datagram.count >= 8: namedSSRC = bySSRC[ForwardingEngine.read32(datagram, at: 4)]
        default: namedSSRC = nil
        }
        return namedSSRC.map { ($0, false) }
    }

    private func handle(_ events: [MediaPeerEvent], of entry: Entry, now: Duration) {
        for event in events {
            switch event {
            case .connected:
                entry.isConnected = true
                metrics.peersConnected.increment()
                metrics.handshakes.increment()
                metrics.handshakeDuration.recordInterval(now - entry.createdAt)
                media.append((entry.key, event))
                onLife?(entry.key, entry.number, true)
            case .rtp:
                entry.rtpReceived += 1
                metrics.rtpReceived.increment()
                media.append((entry.key, event))
            case .rtcp:
                entry.rtcpReceived += 1
                media.append((entry.key, event))
            case .closed(let reason):
                if case .dtlsFailed = reason { metrics.handshakeFailures.increment() }
                if reason != .closedByUs {
                    closed[entry.key] = Stats(
                        isConnected: false, closeReason: reason, rtpReceived: entry.rtpReceived,
                        rtcpReceived: entry.rtcpReceived, counters: entry.peer.counters)
                    forget(entry)
                    onLife?(entry.key, entry.number, false)
                }
            }
        }
        reportCounters(of: entry)
    }

    private func reportCounters(of entry: Entry) {
        let counters = entry.peer.counters
        let dropped = counters.droppedInbound
        if dropped > entry.droppedReported {
            metrics.datagramsDropped.increment(by: dropped - entry.droppedReported)
            entry.droppedReported = dropped
        }
        let failures = counters.authenticationFailures + counters.replays
        if failures > entry.srtpFailuresReported {
            metrics.srtpFailures.increment(by: failures - entry.srtpFailuresReported)
            entry.srtpFailuresReported = failures
        }
    }

    private func forget(_ entry: Entry) {
        guard byKey[entry.key] === entry else { return }
        if entry.isConnected {
            metrics.peersConnected.decrement()
            entry.isConnected = false
        }
        byKey[entry.key] = nil
        byUfrag[entry.peer.localCredentials.ufrag] = nil
        for address in entry.addresses where byAddress[address] === entry { byAddress[address] = nil }
        for ssrc in entry.ssrcs where bySSRC[ssrc] === entry { bySSRC[ssrc] = nil }
        for ssrc in entry.ssrcs {
            let named = SessionSSRC(session: entry.key.session, ssrc: ssrc)
            if bySessionSSRC[named] === entry { bySessionSSRC[named] = nil }
        }
    }

    /// An SSRC as one session's: the key of `bySessionSSRC`.
    private struct SessionSSRC: Hashable {
        let session: StoredSessionID
        let ssrc: UInt32
    }
}
