/// A client's offer in the shape `caucus serve` (and any WebRTC answerer) takes: every section
/// bundled on one transport with rtcp-mux, Opus for audio and VP8 (or H.264) for video, the client's ICE
/// credentials and fingerprint, `a=setup:actpass`, and an SSRC for each section it sends on.
public struct SDPOffer: Sendable, Hashable {
    /// One m-section, named by its index (the `mid`).
    public struct Section: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case audio, video
        }

        public var kind: Kind
        public var direction: SDPDirection
        /// The SSRC this client sends with on this section; nil for a section it only receives on.
        public var sendingSSRC: UInt32?

        public init(kind: Kind, direction: SDPDirection, sendingSSRC: UInt32? = nil) {
            self.kind = kind
            self.direction = direction
            self.sendingSSRC = sendingSSRC
        }

        /// What the client publishes: one section it sends (and receives) on.
        public static func publishing(_ kind: Kind, ssrc: UInt32) -> Section {
            Section(kind: kind, direction: .sendrecv, sendingSSRC: ssrc)
        }

        /// One receive slot.
        public static func receiving(_ kind: Kind) -> Section {
            Section(kind: kind, direction: .recvonly)
        }
    }

    public static let opusPayloadType: UInt8 = 111
    public static let vp8PayloadType: UInt8 = 96
    public static let h264PayloadType: UInt8 = 102

    /// The codec the video sections offer (one per offer: the answerer picks per section).
    public enum VideoCodec: Sendable, Hashable {
        case vp8
        /// RFC 6184 packetization mode 1 (single NAL, STAP-A, FU-A), Constrained Baseline.
        case h264
    }

    public var sections: [Section]
    public var credentials: ICECredentials
    public var fingerprint: DTLSFingerprint
    public var cname = "caucus-client"
    /// The ID to offer RFC 6464 audio levels under in audio sections; nil offers none.
    public var audioLevelID: UInt8?
    public var videoCodec = VideoCodec.vp8

    public init(sections: [Section], credentials: ICECredentials, fingerprint: DTLSFingerprint) {
        self.sections = sections
        self.credentials = credentials
        self.fingerprint = fingerprint
    }

    /// The offer's text, CRLF-separated as SDP requires.
    public var text: String {
        let mids = sections.indices.map(String.init)
        var lines = [
            "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0",
            "a=group:BUNDLE " + mids.joined(separator: " "), "a=msid-semantic:WMS *",
        ]
        for (mid, section) in zip(mids, sections) {
            let (payloadType, rtpmap) =
                section.kind == .audio
                ? (Self.opusPayloadType, "opus/48000/2")
                : videoCodec == .vp8 ? (Self.vp8PayloadType, "VP8/90000") : (Self.h264PayloadType, "H264/90000")
            lines += [
                "m=\(section.kind.rawValue) 9 UDP/TLS/RTP/SAVPF \(payloadType)", "c=IN IP4 0.0.0.0",
                "a=\(section.direction.rawValue)", "a=mid:\(mid)", "a=rtcp-mux",
                "a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.pwd)",
                "a=fingerprint:\(fingerprint.sdpValue)", "a=setup:actpass",
                "a=rtpmap:\(payloadType) \(rtpmap)",
            ]
            if section.kind == .video, videoCodec == .h264 {
                lines.append("a=fmtp:\(payloadType) level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
            }
            if section.kind == .video { lines += ["a=rtcp-fb:\(payloadType) nack", "a=rtcp-fb:\(payloadType) nack pli"] }
            if section.kind == .audio, let id = audioLevelID { lines.append("a=extmap:\(id) \(RTPExtensionURI.audioLevel)") }
            if let ssrc = section.sendingSSRC { lines.append("a=ssrc:\(ssrc) cname:\(cname)") }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
