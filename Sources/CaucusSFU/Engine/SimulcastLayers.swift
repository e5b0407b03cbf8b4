import CaucusMedia

/// One simulcast publication (RFC 8853): its layers (RIDs), their SSRCs as learned, their
/// rates, and the layer forwarded to subscribers without an estimate of their own.
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

/// The simulcast publications: a part of the ``ForwardingEngine`` with state of its own. Per
/// publication its layers, their SSRCs learned from their first packets (the RID extension,
/// RFC 8852), the bytes each carries and the layer forwarded; by SSRC whose layer it is; when
/// the layers were last ranked. The engine hands it the publishers' packets; it says which
/// layer or layer's RTX stream a packet made known, and, every ``rankingInterval``, which
/// publications now forward another layer (the one carrying the most bytes, by a fifth over
/// the current one). What follows from either (streams, routes, slots) is the engine's.
struct SimulcastLayers {
    static let rankingInterval = Duration.seconds(1)
    static let rateIntervalsKept = 3

    /// What a publisher's packet on an SSRC nobody knew made known.
    enum Learned: Equatable {
        /// A layer's SSRC; `forwardedNow` when it is its publication's first (now forwarded).
        case layer(PublishedStream, forwardedNow: Bool)
        /// A layer's RTX stream, which restores `media`.
        case repair(rtx: UInt32, media: UInt32, payloadType: UInt8)
    }

    private(set) var publications: [PublishedStream: SimulcastPublication] = [:]
    /// Each learned layer's SSRC → its publication's stream.
    private(set) var layerStreams: [UInt32: PublishedStream] = [:]
    private var lastRanking: Duration = .zero

    var isEmpty: Bool { publications.isEmpty }

    /// `stream`'s publication, when it is simulcast.
    subscript(stream: PublishedStream) -> SimulcastPublication? { publications[stream] }

    /// The publication whose layer `ssrc` is, once learned.
    func stream(ofLayer ssrc: UInt32) -> PublishedStream? { layerStreams[ssrc] }

    /// Each publication's forwarded layer, as the SSRC of its stream.
    var forwardedLayers: [(stream: PublishedStream, ssrc: UInt32)] {
        publications.compactMap { stream, publication in publication.forwardedSSRC.map { (stream, $0) } }
    }

    /// `user`'s publications as its plan names them (a video section whose answer kept its
    /// RIDs, with the RID extension), their layers' SSRCs still to learn.
    mutating func learn(_ user: Int, plan: MediaSlotPlan) {
        for (kind, layers) in plan.publishedLayers {
            guard let format = plan.publishedFormats[kind], let streamID = format.headerExtensionIDs[RTPExtensionURI.streamID] else { continue }
            publications[PublishedStream(publisher: user, kind: kind)] = SimulcastPublication(
                layers: layers, streamIDExtension: streamID, repairedStreamIDExtension: format.headerExtensionIDs[RTPExtensionURI.repairedStreamID],
                mediaPayloadType: format.codec.payloadType)
        }
    }

    /// Every publication and layer of `user`'s.
    mutating func forget(_ user: Int) {
        publications = publications.filter { $0.key.publisher != user }
        layerStreams = layerStreams.filter { $0.value.publisher != user }
    }

    /// Counts `bytes` for the layer on `ssrc`; false when `ssrc` is no learned layer.
    mutating func count(_ bytes: Int, on ssrc: UInt32) -> Bool {
        guard let stream = layerStreams[ssrc] else { return false }
        publications[stream]?.bytes[ssrc, default: 0] += bytes
        return true
    }

    /// What `user`'s `packet`, on an SSRC no layer, up-track or RTX stream has yet, makes
    /// known: a layer of one of its publications (its RID not learned yet), or a layer's RTX
    /// stream (its repaired RID learned); nil when neither.
    mutating func learn(from packet: [UInt8], ssrc: UInt32, of user: Int) -> Learned? {
        for kind in StreamKind.allCases {
            let stream = PublishedStream(publisher: user, kind: kind)
            guard let publication = publications[stream] else { continue }
            if let rid = Self.text(of: publication.streamIDExtension, in: packet), publication.layers.contains(rid),
                publication.ssrcs[rid] == nil
            {
                publications[stream]!.ssrcs[rid] = ssrc
                layerStreams[ssrc] = stream
                guard publication.forwarded == nil else { return .layer(stream, forwardedNow: false) }
                publications[stream]!.forwarded = rid
                return .layer(stream, forwardedNow: true)
            }
            if let id = publication.repairedStreamIDExtension, let rid = Self.text(of: id, in: packet), let media = publication.ssrcs[rid] {
                return .repair(rtx: ssrc, media: media, payloadType: publication.mediaPayloadType)
            }
        }
        return nil
    }

    /// Every ``rankingInterval``: each publication's layers' rates from the bytes they carried,
    /// and its forwarded layer, the one that carried the most (by a fifth over the current one).
    /// Returns the publishers whose forwarded layer changed, in order; empty between intervals.
    mutating func rank(now: Duration) -> [Int] {
        guard !publications.isEmpty, now - lastRanking >= Self.rankingInterval else { return [] }
        lastRanking = now
        var changed: [Int] = []
        for stream in Array(publications.keys) {
            let publication = publications[stream]!
            publications[stream]!.bytes = [:]
            // The first interval counts from the first ranking's period, not from the clock's zero.
            let elapsed = max(1, DownlinkEstimator.microseconds(publication.since == .zero ? Self.rankingInterval : now - publication.since))
            for ssrc in publication.ssrcs.values {
                let rate = Int(Int64(publication.bytes[ssrc, default: 0]) * 8_000_000 / elapsed)
                let recent = (publication.recentRates[ssrc, default: []] + [rate]).suffix(Self.rateIntervalsKept)
                publications[stream]!.recentRates[ssrc] = Array(recent)
                publications[stream]!.rates[ssrc] = recent.max()
            }
            publications[stream]!.since = now
            guard let (best, bytes) = publication.ssrcs.map({ ($0.key, publication.bytes[$0.value, default: 0]) }).max(by: { $0.1 < $1.1 }),
                best != publication.forwarded, bytes > 0
            else { continue }
            let current = publication.forwardedSSRC.map { publication.bytes[$0, default: 0] } ?? 0
            guard bytes * 5 > current * 6 else { continue }
            publications[stream]!.forwarded = best
            changed.append(stream.publisher)
        }
        return changed.sorted()
    }

    /// An extension element's data as text (a RID), read in place.
    private static func text(of id: UInt8, in packet: [UInt8]) -> String? {
        guard let element = RTPHeaderFields.extensionElement(id: id, in: packet), !element.isEmpty else { return nil }
        return String(decoding: element, as: UTF8.self)
    }
}
