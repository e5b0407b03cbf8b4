import CaucusCore

/// The codecs the SDK carries: what an app's encoder makes and its decoder takes (Opus for
/// audio; VP8, or H.264 by `Configuration.videoCodec`, for camera video and screen share).
public enum MediaCodec: Sendable, Hashable, CustomStringConvertible {
    /// Opus (RFC 6716), for audio: one encoder packet per frame, 48 kHz RTP clock.
    case opus
    /// VP8 (RFC 6386), for video: one encoded frame, 90 kHz RTP clock.
    case vp8
    /// H.264 (Constrained Baseline, RFC 6184 packetization mode 1), for video: one access
    /// unit as an Annex B stream (each NAL unit after a start code), 90 kHz RTP clock.
    case h264

    /// The RTP clock of the codec, in ticks per second: what ``EncodedFrame/timestamp`` counts.
    public var clockRate: Int {
        switch self {
        case .opus: 48_000
        case .vp8, .h264: 90_000
        }
    }

    public var description: String {
        switch self {
        case .opus: "Opus"
        case .vp8: "VP8"
        case .h264: "H.264"
        }
    }
}

/// One encoded frame: the seam between an app's own capture and codecs and the SDK.
///
/// The app hands these to ``AudioHelper/send(_:)`` and ``VideoHelper/send(_:)``, straight from
/// its encoder; the SDK packetises them and sends them over SRTP. What others publish comes
/// back as ``RemoteFrame``s, whole (every packet of the frame arrived) and in order, for the
/// app's decoder.
public struct EncodedFrame: Sendable, Hashable {
    public var codec: MediaCodec
    /// What the encoder made (an Opus packet; a VP8 frame; an H.264 access unit in Annex B
    /// form) or what a decoder takes.
    public var bytes: [UInt8]
    /// The frame's time on its codec's RTP clock (``MediaCodec/clockRate``): 960 ticks apart
    /// for 20 ms Opus frames, 6,000 for 15 frames a second of VP8. Only differences matter;
    /// on receipt it is the sender's clock as the server carries it, with its own origin.
    public var timestamp: UInt32
    /// Decodable without earlier frames: a VP8 key frame, an H.264 access unit with an IDR
    /// slice. Every Opus frame is.
    public var isKeyframe: Bool
    /// For audio: how loud the frame is, in dBov, from -127 (silence) to 0 (the loudest a
    /// signal can be); nil when not measured. The app sets it on what it sends; it travels with
    /// the packet (RFC 6464), the server ranks who speaks by it (``AudioHelper/activeSpeakers``;
    /// a user whose frames carry no level is never ranked), and received audio frames carry
    /// their publisher's, for a level meter.
    public var audioLevel: Int?

    public init(codec: MediaCodec, bytes: [UInt8], timestamp: UInt32, isKeyframe: Bool, audioLevel: Int? = nil) {
        self.codec = codec
        self.bytes = bytes
        self.timestamp = timestamp
        self.isKeyframe = codec == .opus || isKeyframe
        self.audioLevel = audioLevel.map { min(0, max(-127, $0)) }
    }

    /// A frame captured `captureTime` after any fixed origin the app chooses (its first
    /// frame, say): the timestamp is that time on the codec's RTP clock.
    public init(codec: MediaCodec, bytes: [UInt8], captureTime: Duration, isKeyframe: Bool, audioLevel: Int? = nil) {
        let (seconds, attoseconds) = captureTime.components
        let ticks = seconds &* Int64(codec.clockRate) &+ attoseconds / (1_000_000_000_000_000_000 / Int64(codec.clockRate))
        self.init(codec: codec, bytes: bytes, timestamp: UInt32(truncatingIfNeeded: ticks), isKeyframe: isKeyframe, audioLevel: audioLevel)
    }

    /// How many bytes the frame holds.
    public var size: Int { bytes.count }
}

/// A frame another user published, as it reached this user: whose it is, of which kind.
/// Apps never see the receive slots or SSRCs that carried it.
public struct RemoteFrame: Sendable, Hashable {
    /// Who published it.
    public let user: UserID
    /// `.audio`, `.video` (camera) or `.screenShare`.
    public let kind: MediaKind
    public let frame: EncodedFrame

    public init(user: UserID, kind: MediaKind, frame: EncodedFrame) {
        self.user = user
        self.kind = kind
        self.frame = frame
    }
}
