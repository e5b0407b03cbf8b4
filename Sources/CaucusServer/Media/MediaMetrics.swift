import CoreMetrics

/// The media port's metrics, at `/metrics` with the rest (swift-metrics, Prometheus).
struct MediaMetrics: Sendable {
    /// Peers whose ICE and DTLS completed and that have not closed.
    let peersConnected: CoreMetrics.Meter
    let handshakes: CoreMetrics.Counter
    /// From the offer's answer to a keyed peer: ICE and DTLS together, as a user waits for them.
    let handshakeDuration: CoreMetrics.Timer
    let handshakeFailures: CoreMetrics.Counter
    /// SRTP or SRTCP refused: a bad tag, a replay, a packet too old.
    let srtpFailures: CoreMetrics.Counter
    /// Every datagram dropped: an unknown peer's, and each peer's own drops.
    let datagramsDropped: CoreMetrics.Counter
    let rtpReceived: CoreMetrics.Counter
    /// RTP packets sent to subscribers' slots (one per slot a packet fills).
    let rtpForwarded: CoreMetrics.Counter
    /// Their bytes, as sent (SRTP included).
    let bytesForwarded: CoreMetrics.Counter
    /// Receive slots whose source changed (filled, emptied or refilled by someone else).
    let slotSwitches: CoreMetrics.Counter
    /// Routing recomputations (a session's handover after events that change who may receive
    /// what, a peer added or removed, a new speaker ranking): never for chat or a timer tick.
    let routingRecomputations: CoreMetrics.Counter
    /// How long each session routing update held its media loop (the engine's recomputation
    /// and the copies, keyframe requests and slot maps it queued; a handover's slice, or a
    /// timer tick that recomputed slots): forwarding on that loop waits meanwhile.
    let routingUpdateDuration: CoreMetrics.Timer
    /// Datagrams the kernel gave another loop's socket, handed to the loop of their peer.
    let datagramsHandedOver: CoreMetrics.Counter
    /// Packets a subscriber NACKed, sent again from the retransmission cache.
    let retransmissions: CoreMetrics.Counter
    /// Packets repeated to probe a subscriber's downlink (`ProbeSchedule`).
    let probePackets: CoreMetrics.Counter
    /// Keyframe requests (PLI) the server sent publishers, after coalescing.
    let keyframeRequests: CoreMetrics.Counter
    /// NACKs the server sent publishers of packets lost on their way to it.
    let upstreamNACKs: CoreMetrics.Counter
    /// Datagrams sent in runs to one peer that the kernel cut up (UDP GSO, `SegmentationPlan`).
    let segmentedDatagrams: CoreMetrics.Counter
    /// 1 when the media port sends such runs (`--media-gso` and the kernel), else 0.
    let segmentationOffload: CoreMetrics.Gauge

    init() {
        // The Prometheus backend first: a metric made before swift-metrics is bootstrapped
        // stays a no-op for good (the media port is bound before the server's other metrics
        // are made, so `/metrics` showed no media series at all).
        _ = ServerMetrics.registry
        peersConnected = CoreMetrics.Meter(label: "caucus_media_peers_connected")
        handshakes = CoreMetrics.Counter(label: "caucus_media_dtls_handshakes_total")
        handshakeDuration = CoreMetrics.Timer(label: "caucus_media_dtls_handshake_duration_seconds", preferredDisplayUnit: .seconds)
        handshakeFailures = CoreMetrics.Counter(label: "caucus_media_dtls_failures_total")
        srtpFailures = CoreMetrics.Counter(label: "caucus_media_srtp_failures_total")
        datagramsDropped = CoreMetrics.Counter(label: "caucus_media_datagrams_dropped_total")
        rtpReceived = CoreMetrics.Counter(label: "caucus_media_rtp_received_total")
        rtpForwarded = CoreMetrics.Counter(label: "caucus_media_rtp_forwarded_total")
        bytesForwarded = CoreMetrics.Counter(label: "caucus_media_bytes_forwarded_total")
        slotSwitches = CoreMetrics.Counter(label: "caucus_media_slot_switches_total")
        routingRecomputations = CoreMetrics.Counter(label: "caucus_media_routing_recomputations_total")
        routingUpdateDuration = CoreMetrics.Timer(label: MediaMetricNames.routingUpdateDuration, preferredDisplayUnit: .seconds)
        datagramsHandedOver = CoreMetrics.Counter(label: "caucus_media_datagrams_handed_over_total")
        retransmissions = CoreMetrics.Counter(label: "caucus_media_retransmissions_total")
        keyframeRequests = CoreMetrics.Counter(label: "caucus_media_keyframe_requests_total")
        probePackets = CoreMetrics.Counter(label: "caucus_media_probe_packets_total")
        upstreamNACKs = CoreMetrics.Counter(label: "caucus_media_upstream_nacks_total")
        segmentedDatagrams = CoreMetrics.Counter(label: "caucus_media_segmented_datagrams_total")
        segmentationOffload = CoreMetrics.Gauge(label: "caucus_media_segmentation_offload")
    }
}

/// Names of media metrics that programs beside the server read (`caucus bench media`).
public enum MediaMetricNames {
    public static let routingUpdateDuration = "caucus_media_routing_update_duration_seconds"
}
