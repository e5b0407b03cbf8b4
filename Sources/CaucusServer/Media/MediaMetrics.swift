import CoreMetrics

/// The media port's metrics, at `/metrics` with the rest (swift-metrics, Prometheus).
struct MediaMetrics: Sendable {
    /// Peers whose ICE and DTLS completed and that have not closed.
    let peersConnected = CoreMetrics.Meter(label: "caucus_media_peers_connected")
    let handshakes = CoreMetrics.Counter(label: "caucus_media_dtls_handshakes_total")
    /// From the offer's answer to a keyed peer: ICE and DTLS together, as a user waits for them.
    let handshakeDuration = CoreMetrics.Timer(label: "caucus_media_dtls_handshake_duration_seconds", preferredDisplayUnit: .seconds)
    let handshakeFailures = CoreMetrics.Counter(label: "caucus_media_dtls_failures_total")
    /// SRTP or SRTCP refused: a bad tag, a replay, a packet too old.
    let srtpFailures = CoreMetrics.Counter(label: "caucus_media_srtp_failures_total")
    /// Every datagram dropped: an unknown peer's, and each peer's own drops.
    let datagramsDropped = CoreMetrics.Counter(label: "caucus_media_datagrams_dropped_total")
    let rtpReceived = CoreMetrics.Counter(label: "caucus_media_rtp_received_total")
    /// RTP packets sent to subscribers' slots (one per slot a packet fills).
    let rtpForwarded = CoreMetrics.Counter(label: "caucus_media_rtp_forwarded_total")
}
