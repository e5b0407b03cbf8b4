/// The direction attribute of a media section (RFC 8866 §6.7).
public enum SDPDirection: String, Hashable, Sendable {
    case sendrecv, sendonly, recvonly, inactive

    /// What the answerer says in reply: it receives what the offerer sends, and the reverse.
    public var reversed: SDPDirection {
        switch self {
        case .sendrecv: .sendrecv
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        case .inactive: .inactive
        }
    }

    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}

/// DTLS role negotiation (RFC 5763 §5).
public enum SDPSetupRole: String, Hashable, Sendable {
    case actpass, active, passive, holdconn
}

/// A certificate fingerprint: `sha-256 AB:CD:…`.
public struct SDPFingerprint: Hashable, Sendable {
    public var algorithm: String
    public var value: String

    public init(algorithm: String, value: String) {
        self.algorithm = algorithm.lowercased()
        self.value = value.uppercased()
    }

    /// From a digest: colon-separated upper-case hex pairs.
    public init(algorithm: String, digest: some Sequence<UInt8>) {
        let hexDigits = Array("0123456789ABCDEF")
        let pairs = digest.map { String([hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0F)]]) }
        self.init(algorithm: algorithm, value: pairs.joined(separator: ":"))
    }
}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]`.
public struct SDPExtmap: Hashable, Sendable {
    public var id: UInt8
    public var direction: SDPDirection?
    public var uri: String
    public var attributes: String?
}

/// A payload type with what `rtpmap`, `fmtp` and `rtcp-fb` say about it.
public struct SDPCodec: Hashable, Sendable {
    public var payloadType: UInt8
    public var name: String
    public var clockRate: Int
    public var channels: Int?
    /// The `fmtp` parameters, unparsed, as offered.
    public var formatParameters: String?
    /// `rtcp-fb` values such as `nack`, `nack pli`, `ccm fir`, `transport-cc`.
    public var feedback: [String]

    public init(payloadType: UInt8, name: String, clockRate: Int, channels: Int? = nil, formatParameters: String? = nil, feedback: [String] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.feedback = feedback
    }

    /// The `fmtp` parameters as key → value (keys lower-cased).
    public var parameters: [String: String] {
        var result: [String: String] = [:]
        for pair in (formatParameters ?? "").split(separator: ";") {
            // Never empty: a split that keeps empty pieces returns at least one.
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingSpaces.lowercased()
            result[key] = parts.count > 1 ? String(parts[1].trimmingSpaces) : ""
        }
        return result
    }
}

/// `a=ssrc-group:<semantics> <ssrc> …` (FID pairs a stream with its retransmissions).
public struct SDPSSRCGroup: Hashable, Sendable {
    public var semantics: String
    public var ssrcs: [UInt32]
}

/// One `m=` section with the attributes WebRTC uses; others are skipped.
public struct SDPMediaSection: Hashable, Sendable {
    /// `audio`, `video` or `application`.
    public var kind: String
    public var port: Int
    public var transportProtocol: String
    public var formats: [String]
    public var mid: String?
    public var direction: SDPDirection = .sendrecv
    public var rtcpMux = false
    public var iceUfrag: String?
    public var icePwd: String?
    public var fingerprints: [SDPFingerprint] = []
    public var setup: SDPSetupRole?
    public var extmaps: [SDPExtmap] = []
    /// In the order of the `m=` line's formats: the offerer's preference.
    public var codecs: [SDPCodec] = []
    /// Each SSRC the offerer will send from, with its `cname` if given.
    public var ssrcs: [UInt32: String] = [:]
    public var ssrcGroups: [SDPSSRCGroup] = []
    /// `a=msid:<stream> <track>`.
    public var msid: String?
    /// Candidate lines, unparsed: an ICE-lite server does not use the peer's candidates.
    public var candidates: [String] = []
    /// `a=rid:<id> send` (RFC 8851): the RTP stream IDs the offerer sends, in order.
    public var sendRIDs: [String] = []
    /// `a=simulcast:send <id>;<id>…` (RFC 8853): the layers it offers to send, in order; a
    /// layer offered paused (`~id`) or with alternatives (`a,b`) keeps its first ID, unpaused.
    public var simulcastSend: [String] = []

    public init(kind: String, port: Int, transportProtocol: String, formats: [String]) {
        self.kind = kind
        self.port = port
        self.transportProtocol = transportProtocol
        self.formats = formats
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result.removeFirst() }
        while result.last == " " || result.last == "\t" { result.removeLast() }
        return result
    }
}
