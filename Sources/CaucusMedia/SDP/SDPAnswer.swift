/// What the server puts in every answer: its ICE-lite credentials, its certificate's
/// fingerprint, its one host candidate, and what it forwards.
public struct SDPAnswerOptions: Sendable {
    public var iceUfrag: String
    public var icePwd: String
    public var fingerprint: SDPFingerprint
    /// The address and port announced in the one host candidate (`--media-address`).
    public var candidate: TransportAddress
    /// A passive ICE-TCP candidate (RFC 6544), announced after the UDP one when set.
    public var tcpCandidate: TransportAddress?
    /// The `o=` line's session ID; any number that stays the same for this peer.
    public var sessionID: UInt64
    /// Header extensions answered when offered (the offerer's IDs are kept). Transport-wide
    /// sequence numbers where the offerer sends (the server gives feedback on what it
    /// receives), and where it receives only with ``downlinkEstimation``.
    public var headerExtensions: Set<String> = [
        RTPExtensionURI.mid, RTPExtensionURI.audioLevel, RTPExtensionURI.transportWideCC, RTPExtensionURI.streamID,
        RTPExtensionURI.repairedStreamID,
    ]
    /// Whether a video section offering simulcast (RFC 8853, with RIDs) is answered with every
    /// layer; without, the offerer sends one.
    public var simulcast = true
    /// Feedback answered when offered for the chosen codec (`transport-cc` like its extension).
    public var feedback: Set<String> = ["nack", "nack pli", "ccm fir", "transport-cc"]
    /// Whether transport-wide congestion control is answered on sections where the server
    /// sends too, when offered: the subscriber then reports what arrived of the server's
    /// packets, and the server estimates its downlink (`DownlinkEstimator`) to choose its
    /// simulcast layers.
    public var downlinkEstimation = true
    /// Whether redundant audio (RFC 2198 RED wrapping Opus) is answered when offered: first,
    /// so a browser that can send it does, and subscribers that keep it receive it.
    public var audioRedundancy = true
    /// Whether RTX (RFC 4588) is answered when offered for the chosen video codec.
    public var retransmissions = true
    /// Our retransmission SSRC per mid, announced with the sending SSRC as an FID group where
    /// RTX is answered.
    public var retransmissionSSRCs: [String: UInt32] = [:]
    /// Our sending SSRC per mid, for sections where the server sends (the router's slots).
    public var sendingSSRCs: [String: UInt32] = [:]
    public var cname = "caucus"

    public init(iceUfrag: String, icePwd: String, fingerprint: SDPFingerprint, candidate: TransportAddress, sessionID: UInt64) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidate = candidate
        self.sessionID = sessionID
    }
}

/// The outcome of answering one media section.
public struct NegotiatedMedia: Hashable, Sendable {
    public var mid: String
    public var kind: String
    /// Nil when the section was rejected (port 0): no codec the server forwards.
    public var codec: SDPCodec?
    /// Redundant audio wrapping `codec` (RFC 2198), when offered and answered.
    public var redundancy: SDPCodec? = nil
    /// Retransmissions of `codec` (RFC 4588 RTX), when offered and answered.
    public var retransmission: SDPCodec? = nil
    /// The simulcast layers (RIDs) the offerer will send, in its order, when answered.
    public var simulcastLayers: [String] = []
    /// Our direction, the offer's reversed.
    public var direction: SDPDirection
    /// Negotiated header extension IDs by URI.
    public var headerExtensionIDs: [String: UInt8]
    /// The SSRCs the offerer announced for this section.
    public var remoteSSRCs: [UInt32]
}

/// Builds the answer of an ICE-lite, DTLS-passive SFU to a WebRTC offer.
public struct SDPAnswer: Sendable {
    public let text: String
    public let media: [NegotiatedMedia]
    /// The offerer's fingerprints (from its first bundled section), for the DTLS handshake.
    public let remoteFingerprints: [SDPFingerprint]
    public let remoteICEUfrag: String
    public let remoteICEPwd: String

    public init(answering offer: SessionDescription, options: SDPAnswerOptions) throws(SDPNegotiationError) {
        guard let bundleTag = offer.bundleGroup.first else { throw .bundleRequired }
        var negotiated: [NegotiatedMedia] = []
        for section in offer.media {
            guard let mid = section.mid else { throw .missingMid }
            guard offer.bundleGroup.contains(mid) || section.port == 0 else { throw .bundleRequired }
            let accepted = section.port != 0 ? Self.chooseCodec(for: section) : nil
            if accepted != nil, !section.rtcpMux { throw .rtcpMuxRequired(mid: mid) }
            var extensionIDs: [String: UInt8] = [:]
            var senderOnly: Set<String> = [RTPExtensionURI.streamID, RTPExtensionURI.repairedStreamID]
            if !options.downlinkEstimation { senderOnly.formUnion([RTPExtensionURI.transportWideCC, "transport-cc"]) }
            for extmap in section.extmaps where options.headerExtensions.contains(extmap.uri) {
                guard section.direction.sends || !senderOnly.contains(extmap.uri) else { continue }
                extensionIDs[extmap.uri] = extmap.id
            }
            let feedback = section.direction.sends ? options.feedback : options.feedback.subtracting(senderOnly)
            let redundancy = options.audioRedundancy ? accepted.flatMap { Self.chooseRedundancy(wrapping: $0, in: section) } : nil
            negotiated.append(NegotiatedMedia(
                mid: mid, kind: section.kind, codec: accepted.map { Self.answered($0, feedback: feedback) },
                redundancy: redundancy.map { Self.answered($0, feedback: []) },
                retransmission: options.retransmissions ? accepted.flatMap { Self.chooseRetransmission(of: $0, in: section) } : nil,
                simulcastLayers: options.simulcast && accepted != nil ? Self.simulcastLayers(of: section) : [],
                direction: section.direction.reversed, headerExtensionIDs: extensionIDs,
                remoteSSRCs: section.ssrcs.keys.sorted()))
        }
        guard negotiated.contains(where: { $0.codec != nil }) else { throw .noAcceptableMedia }
        guard let transport = offer.media.first(where: { $0.mid == bundleTag }) else { throw .bundleRequired }
        guard let ufrag = transport.iceUfrag, let pwd = transport.icePwd else { throw .missingICECredentials(mid: bundleTag) }
        guard !transport.fingerprints.isEmpty else { throw .missingFingerprint(mid: bundleTag) }
        self.media = negotiated
        self.remoteFingerprints = transport.fingerprints
        self.remoteICEUfrag = ufrag
        self.remoteICEPwd = pwd
        self.text = Self.render(offer: offer, negotiated: negotiated, options: options)
    }

    /// Opus for audio; VP8, else H.264 with packetization-mode 1, for video; the offerer's
    /// order decides between equals.
    static func chooseCodec(for section: SDPMediaSection) -> SDPCodec? {
        let codecs = section.codecs.filter { section.formats.contains(String($0.payloadType)) }
        switch section.kind {
        case "audio":
            return codecs.first { $0.name.lowercased() == "opus" && $0.clockRate == 48000 && $0.channels == 2 }
        case "video":
            if let vp8 = codecs.first(where: { $0.name.uppercased() == "VP8" && $0.clockRate == 90000 }) { return vp8 }
            return codecs.first { $0.name.uppercased() == "H264" && $0.clockRate == 90000 && $0.parameters["packetization-mode"] == "1" }
        default:
            return nil
        }
    }

    /// RED for Opus: `red/48000/2` whose every block (its `fmtp`, e.g. `111/111`) is the chosen
    /// codec; a RED that names anything else would hand subscribers blocks they cannot decode.
    static func chooseRedundancy(wrapping primary: SDPCodec, in section: SDPMediaSection) -> SDPCodec? {
        guard section.kind == "audio" else { return nil }
        return section.codecs.first { codec in
            guard section.formats.contains(String(codec.payloadType)), codec.name.lowercased() == "red",
                codec.clockRate == primary.clockRate, (codec.channels ?? 1) == (primary.channels ?? 1),
                let blocks = codec.formatParameters?.split(separator: "/", omittingEmptySubsequences: false), !blocks.isEmpty
            else { return false }
            return blocks.allSatisfy { UInt8($0.trimmingSpaces) == primary.payloadType }
        }
    }

    /// RTX for the chosen video codec: `rtx` at its clock rate whose `apt` is its payload type.
    static func chooseRetransmission(of primary: SDPCodec, in section: SDPMediaSection) -> SDPCodec? {
        guard section.kind == "video" else { return nil }
        return section.codecs.first { codec in
            section.formats.contains(String(codec.payloadType)) && codec.name.lowercased() == "rtx"
                && codec.clockRate == primary.clockRate && codec.parameters["apt"] == String(primary.payloadType)
        }.map { Self.answered($0, feedback: []) }
    }

    /// The layers of a sending video section's `a=simulcast:send`, each declared by `a=rid`
    /// and with the RID extension offered (how its packets name their layer).
    static func simulcastLayers(of section: SDPMediaSection) -> [String] {
        guard section.kind == "video", section.direction.sends, section.simulcastSend.count > 1,
            section.extmaps.contains(where: { $0.uri == RTPExtensionURI.streamID })
        else { return [] }
        let layers = section.simulcastSend.filter(section.sendRIDs.contains)
        return layers.count > 1 ? layers : []
    }

    private static func answered(_ codec: SDPCodec, feedback: Set<String>) -> SDPCodec {
        var answered = codec
        answered.feedback = codec.feedback.filter { feedback.contains($0) }
        return answered
    }

    private static func render(offer: SessionDescription, negotiated: [NegotiatedMedia], options: SDPAnswerOptions) -> String {
        let address = options.candidate.ip
        let addressType = if case .v4 = address { "IP4" } else { "IP6" }
        let bundled = negotiated.filter { $0.codec != nil }.map(\.mid)
        var lines = [
            "v=0",
            "o=- \(options.sessionID) 2 IN \(addressType) \(address)",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE \(bundled.joined(separator: " "))",
            "a=ice-lite",
            "a=msid-semantic: WMS *",
        ]
        for (section, answer) in zip(offer.media, negotiated) {
            guard let codec = answer.codec else {
                // Rejected: port zero, the offer's formats, and its mid so it can be matched.
                lines += ["m=\(section.kind) 0 \(section.transportProtocol) \(section.formats.joined(separator: " "))",
                          "c=IN \(addressType) \(address)", "a=mid:\(answer.mid)", "a=inactive"]
                continue
            }
            let formats = [answer.redundancy?.payloadType, codec.payloadType, answer.retransmission?.payloadType].compactMap { $0 }
                .map(String.init)
            lines += [
                "m=\(section.kind) \(options.candidate.port) \(section.transportProtocol) \(formats.joined(separator: " "))",
                "c=IN \(addressType) \(address)",
                "a=mid:\(answer.mid)",
                "a=\(answer.direction.rawValue)",
                "a=rtcp-mux",
                "a=ice-ufrag:\(options.iceUfrag)",
                "a=ice-pwd:\(options.icePwd)",
                "a=fingerprint:\(options.fingerprint.algorithm) \(options.fingerprint.value)",
                // The offerer, as DTLS client, starts the handshake towards the server.
                "a=setup:passive",
            ]
            for extmap in section.extmaps where answer.headerExtensionIDs[extmap.uri] == extmap.id {
                lines.append("a=extmap:\(extmap.id) \(extmap.uri)")
            }
            let channels = codec.channels.map { "/\($0)" } ?? ""
            lines.append("a=rtpmap:\(codec.payloadType) \(codec.name)/\(codec.clockRate)\(channels)")
            if let parameters = codec.formatParameters { lines.append("a=fmtp:\(codec.payloadType) \(parameters)") }
            lines += codec.feedback.map { "a=rtcp-fb:\(codec.payloadType) \($0)" }
            for companion in [answer.redundancy, answer.retransmission].compactMap({ $0 }) {
                lines.append("a=rtpmap:\(companion.payloadType) \(companion.name)/\(companion.clockRate)\(companion.channels.map { "/\($0)" } ?? "")")
                if let parameters = companion.formatParameters { lines.append("a=fmtp:\(companion.payloadType) \(parameters)") }
            }
            if !answer.simulcastLayers.isEmpty {
                lines += answer.simulcastLayers.map { "a=rid:\($0) recv" }
                lines.append("a=simulcast:recv \(answer.simulcastLayers.joined(separator: ";"))")
            }
            if answer.direction.sends, let ssrc = options.sendingSSRCs[answer.mid] {
                lines.append("a=msid:caucus-\(answer.mid) caucus-\(answer.mid)")
                if answer.retransmission != nil, let rtx = options.retransmissionSSRCs[answer.mid] {
                    lines.append("a=ssrc-group:FID \(ssrc) \(rtx)")
                    lines.append("a=ssrc:\(ssrc) cname:\(options.cname)")
                    lines.append("a=ssrc:\(rtx) cname:\(options.cname)")
                } else {
                    lines.append("a=ssrc:\(ssrc) cname:\(options.cname)")
                }
            }
            // RFC 8445 §5.1.2.1 host priority: type preference 126, local 65535, component 1.
            lines.append("a=candidate:1 1 udp 2130706431 \(address) \(options.candidate.port) typ host")
            if let tcp = options.tcpCandidate {
                // Type preference 90 (below UDP's 126), so a peer that can use UDP does; the
                // discard port 9 in an active candidate, our listening port in this passive one.
                lines.append("a=candidate:2 1 tcp 1526726655 \(tcp.ip) \(tcp.port) typ host tcptype passive")
            }
            lines.append("a=end-of-candidates")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
