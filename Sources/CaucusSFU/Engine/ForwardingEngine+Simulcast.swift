import CaucusMedia

/// Simulcast publications (RFC 8853): a publisher sends its video as several layers, each on an
/// SSRC of its own that its offer does not name; each packet names its layer in the RID
/// extension (RFC 8852), and an RTX packet the layer it repairs. The router learns each layer's
/// SSRC from its first packet, and forwards one layer per publication: the one carrying the
/// most bytes, re-ranked every second (a layer must carry a fifth more than the forwarded one
/// to take over), so subscribers get the best layer the publisher's own congestion control
/// allows (``SimulcastLayers``). A switch between layers is a slot's switch of source: at the
/// new layer's keyframe, the old one kept until then. Layers no subscriber takes are not
/// forwarded (the publisher is told nothing: it keeps sending them). A subscriber with a
/// downlink estimate gets the layer its estimate holds instead (`ForwardingEngine+Downlink.swift`).
extension ForwardingEngine {
    /// Learns a layer's SSRC (or its RTX SSRC) from a publisher's packet, and counts the bytes of
    /// each layer. Returns a recomputation's changes when the packet made a layer known that is
    /// now forwarded (the publication's first).
    func observeSimulcast(_ packet: [UInt8], from user: Int, now: Duration) -> Changes? {
        guard packet.count >= 12 else { return nil }
        let ssrc = Self.read32(packet, at: 8)
        if simulcast.count(packet.count, on: ssrc) { return nil }
        // Streams already known (the publisher's audio, a layer's known RTX) need no reading.
        guard upTracks[ssrc] == nil, retransmissionSources.source(of: ssrc) == nil else { return nil }
        switch simulcast.learn(from: packet, ssrc: ssrc, of: user) {
        case .layer(_, let forwardedNow):
            // Known to the packet path (keyframes, cache) for subscribers that choose it.
            learnStreams()
            return forwardedNow ? recompute(receiversOf: user, and: [], now: now) : nil
        case .repair(let rtx, let media, let payloadType):
            retransmissionSources.learnLayer(rtx, of: user, restoring: media, payloadType: payloadType)
            return nil
        case nil:
            return nil
        }
    }

    /// Every ``SimulcastLayers/rankingInterval``: each publication's forwarded layer, the one
    /// that carried the most bytes (by a fifth over the current one). A recomputation's changes
    /// when one changed (its receivers in slices of about `slice` when they are many).
    func rankSimulcastLayers(now: Duration, slice: Int = .max) -> Changes? {
        let changed = simulcast.rank(now: now)
        guard !changed.isEmpty else { return nil }
        learnStreams()
        var changes = Changes()
        for publisher in changed { changes.append(recompute(receiversOf: publisher, and: [], now: now, slice: slice)) }
        return changes
    }
}
