import CaucusMedia

/// Simulcast publications (RFC 8853): a publisher sends its video as several layers, each on an
/// SSRC of its own that its offer does not name; each packet names its layer in the RID
/// extension (RFC 8852), and an RTX packet the layer it repairs. The router learns each layer's
/// SSRC from its first packet, and forwards one layer per publication: the one carrying the
/// most bytes, re-ranked every second (a layer must carry a fifth more than the forwarded one
/// to take over), so subscribers get the best layer the publisher's own congestion control
/// allows. A switch between layers is a slot's switch of source: at the new layer's keyframe,
/// the old one kept until then. Layers no subscriber takes are not forwarded (the publisher is
/// told nothing: it keeps sending them). A subscriber with a downlink estimate gets the layer
/// its estimate holds instead (`ForwardingEngine+Downlink.swift`).
extension ForwardingEngine {
    struct SimulcastPublication {
        let layers: [String]
        let streamIDExtension: UInt8
        let repairedStreamIDExtension: UInt8?
        let mediaPayloadType: UInt8
        /// RID → its SSRC, as learned.
        var ssrcs: [String: UInt32] = [:]
        /// Bytes per layer SSRC since the last ranking, each layer's rate over the last few
        /// intervals (bits per second, the latest last), and its rate: the highest of those
        /// (a layer's rate swings with its picture and its encoder's load; a subscriber given a
        /// layer must carry its peaks).
        var bytes: [UInt32: Int] = [:]
        var recentRates: [UInt32: [Int]] = [:]
        var rates: [UInt32: Int] = [:]
        var forwarded: String?
        /// When `bytes` started counting.
        var since: Duration = .zero

        var forwardedSSRC: UInt32? { forwarded.flatMap { ssrcs[$0] } }
    }

    static let layerRankingInterval = Duration.seconds(1)
    static let rateIntervalsKept = 3

    /// Learns a layer's SSRC (or its RTX SSRC) from a publisher's packet, and counts the bytes of
    /// each layer. Returns a recomputation's changes when the packet made a layer known that is
    /// now forwarded (the publication's first).
    func observeSimulcast(_ packet: [UInt8], from user: Int, now: Duration) -> Changes? {
        guard packet.count >= 12 else { return nil }
        let ssrc = Self.read32(packet, at: 8)
        if let stream = simulcastLayerSSRCs[ssrc] {
            simulcast[stream]?.bytes[ssrc, default: 0] += packet.count
            return nil
        }
        // Streams already known (the publisher's audio, a layer's known RTX) need no reading.
        guard upTracks[ssrc] == nil, retransmissionSources.source(of: ssrc) == nil else { return nil }
        for kind in StreamKind.allCases {
            let stream = PublishedStream(publisher: user, kind: kind)
            guard let publication = simulcast[stream] else { continue }
            if let rid = Self.text(of: publication.streamIDExtension, in: packet), publication.layers.contains(rid),
                publication.ssrcs[rid] == nil
            {
                simulcast[stream]!.ssrcs[rid] = ssrc
                simulcastLayerSSRCs[ssrc] = stream
                guard publication.forwarded == nil else {
                    // Known to the packet path (keyframes, cache) for subscribers that choose it.
                    learnStreams()
                    return nil
                }
                simulcast[stream]!.forwarded = rid
                learnStreams()
                return recompute(receiversOf: user, and: [], now: now)
            }
            if let id = publication.repairedStreamIDExtension, let rid = Self.text(of: id, in: packet), let media = publication.ssrcs[rid] {
                retransmissionSources.learnLayer(ssrc, of: user, restoring: media, payloadType: publication.mediaPayloadType)
                return nil
            }
        }
        return nil
    }

    /// Every ``layerRankingInterval``: each publication's forwarded layer, the one that carried
    /// the most bytes (by a fifth over the current one). A recomputation's changes when one
    /// changed (its receivers in slices of about `slice` when they are many).
    func rankSimulcastLayers(now: Duration, slice: Int = .max) -> Changes? {
        guard !simulcast.isEmpty, now - lastLayerRanking >= Self.layerRankingInterval else { return nil }
        lastLayerRanking = now
        var changed: [Int] = []
        for stream in Array(simulcast.keys) {
            let publication = simulcast[stream]!
            simulcast[stream]!.bytes = [:]
            // The first interval counts from the first ranking's period, not from the clock's zero.
            let elapsed = max(1, DownlinkEstimator.microseconds(publication.since == .zero ? Self.layerRankingInterval : now - publication.since))
            for ssrc in publication.ssrcs.values {
                let rate = Int(Int64(publication.bytes[ssrc, default: 0]) * 8_000_000 / elapsed)
                let recent = (publication.recentRates[ssrc, default: []] + [rate]).suffix(Self.rateIntervalsKept)
                simulcast[stream]!.recentRates[ssrc] = Array(recent)
                simulcast[stream]!.rates[ssrc] = recent.max()
            }
            simulcast[stream]!.since = now
            guard let (best, bytes) = publication.ssrcs.map({ ($0.key, publication.bytes[$0.value, default: 0]) }).max(by: { $0.1 < $1.1 }),
                best != publication.forwarded, bytes > 0
            else { continue }
            let current = publication.forwardedSSRC.map { publication.bytes[$0, default: 0] } ?? 0
            guard bytes * 5 > current * 6 else { continue }
            simulcast[stream]!.forwarded = best
            changed.append(stream.publisher)
        }
        guard !changed.isEmpty else { return nil }
        learnStreams()
        var changes = Changes()
        for publisher in changed.sorted() { changes.append(recompute(receiversOf: publisher, and: [], now: now, slice: slice)) }
        return changes
    }

    /// Each simulcast publication's forwarded layer, as the SSRC of the stream.
    var forwardedLayers: [(stream: PublishedStream, ssrc: UInt32)] {
        simulcast.compactMap { stream, publication in publication.forwardedSSRC.map { (stream, $0) } }
    }

    func learnSimulcast(of user: Int, plan: MediaSlotPlan) {
        for (kind, layers) in plan.publishedLayers {
            guard let format = plan.publishedFormats[kind], let streamID = format.headerExtensionIDs[RTPExtensionURI.streamID] else { continue }
            simulcast[PublishedStream(publisher: user, kind: kind)] = SimulcastPublication(
                layers: layers, streamIDExtension: streamID, repairedStreamIDExtension: format.headerExtensionIDs[RTPExtensionURI.repairedStreamID],
                mediaPayloadType: format.codec.payloadType)
        }
    }

    func forgetSimulcast(of user: Int) {
        simulcast = simulcast.filter { $0.key.publisher != user }
        simulcastLayerSSRCs = simulcastLayerSSRCs.filter { $0.value.publisher != user }
    }

    /// An extension element's data as text (a RID), read in place.
    private static func text(of id: UInt8, in packet: [UInt8]) -> String? {
        guard let element = RTPHeaderFields.extensionElement(id: id, in: packet), !element.isEmpty else { return nil }
        return String(decoding: element, as: UTF8.self)
    }
}
