/// One track of a WebM/Matroska file: its number in the file's blocks and how to decode it.
public struct WebMTrack: Hashable, Sendable {
    public enum Codec: Hashable, Sendable {
        /// Opus at 48 kHz (RFC 7845). `channels` is what a decoder is told to output: WebRTC
        /// signals Opus as two channels whatever the packets carry, and a decoder turns mono
        /// packets into stereo. `preSkip` is the encoder's priming to drop, in 48 kHz samples:
        /// 0 for passthrough, where the sender's priming is unknown and timestamps are kept as sent.
        case opus(channels: UInt8 = 2, preSkip: UInt16 = 0)
        /// VP8 (RFC 6386) pictures of this size, from their key frames.
        case vp8(width: Int, height: Int)
        /// H.264 (`V_MPEG4/ISO/AVC`) with these parameter sets: blocks of NAL units each
        /// after its four-byte length. Matroska only (WebM has no H.264).
        case h264(AVCDecoderConfiguration)

        public var isVideo: Bool {
            if case .opus = self { return false }
            return true
        }

        /// The codec's name in the timeline and the control API: `opus`, `vp8`, `h264`.
        public var name: String {
            switch self {
            case .opus: "opus"
            case .vp8: "vp8"
            case .h264: "h264"
            }
        }

        /// A video's picture size; nil for audio.
        public var pictureSize: (width: Int, height: Int)? {
            switch self {
            case .opus: nil
            case .vp8(let width, let height): (width, height)
            case .h264(let configuration): (configuration.parameters.width, configuration.parameters.height)
            }
        }

        /// The file type that can hold it: WebM for Opus and VP8, Matroska for H.264.
        public var docType: WebMMuxer.DocType {
            if case .h264 = self { return .matroska }
            return .webm
        }
    }

    /// 1...126: a block names its track in one byte.
    public var number: UInt8
    /// Unique within the file and, ideally, across files; never 0.
    public var uid: UInt64
    public var codec: Codec
    /// Shown by players (the publisher's name, say); left out when nil.
    public var name: String?

    public init(number: UInt8, uid: UInt64, codec: Codec, name: String? = nil) {
        self.number = number
        self.uid = uid
        self.codec = codec
        self.name = name
    }

    /// The TrackEntry element.
    func encoded() -> [UInt8] {
        var children = EBMLElement.unsigned(MatroskaID.trackNumber, UInt64(number))
        children += EBMLElement.unsigned(MatroskaID.trackUID, uid)
        children += EBMLElement.unsigned(MatroskaID.flagLacing, 0)
        if let name { children += EBMLElement.string(MatroskaID.name, name) }
        switch codec {
        case .opus(let channels, let preSkip):
            children += EBMLElement.unsigned(MatroskaID.trackType, 2)
            children += EBMLElement.string(MatroskaID.codecID, "A_OPUS")
            children += EBMLElement.element(MatroskaID.codecPrivate, Self.opusHead(channels: channels, preSkip: preSkip))
            // Matroska's Opus mapping: the pre-skip again, in nanoseconds, and the 80 ms a
            // decoder must run before a seek target to converge (RFC 7845 §4.6).
            children += EBMLElement.unsigned(MatroskaID.codecDelay, UInt64(preSkip) * 1_000_000_000 / 48_000)
            children += EBMLElement.unsigned(MatroskaID.seekPreRoll, 80_000_000)
            children += EBMLElement.element(
                MatroskaID.audio,
                EBMLElement.float(MatroskaID.samplingFrequency, 48_000) + EBMLElement.unsigned(MatroskaID.channels, UInt64(channels)))
        case .vp8(let width, let height):
            children += EBMLElement.unsigned(MatroskaID.trackType, 1)
            children += EBMLElement.string(MatroskaID.codecID, "V_VP8")
            children += Self.video(width: width, height: height)
        case .h264(let configuration):
            children += EBMLElement.unsigned(MatroskaID.trackType, 1)
            children += EBMLElement.string(MatroskaID.codecID, "V_MPEG4/ISO/AVC")
            children += EBMLElement.element(MatroskaID.codecPrivate, configuration.bytes)
            children += Self.video(width: configuration.parameters.width, height: configuration.parameters.height)
        }
        return EBMLElement.element(MatroskaID.trackEntry, children)
    }

    private static func video(width: Int, height: Int) -> [UInt8] {
        EBMLElement.element(
            MatroskaID.video,
            EBMLElement.unsigned(MatroskaID.pixelWidth, UInt64(max(width, 0)))
                + EBMLElement.unsigned(MatroskaID.pixelHeight, UInt64(max(height, 0))))
    }

    /// The identification header of RFC 7845 §5.1, Matroska's CodecPrivate for Opus: mapping
    /// family 0 (mono or stereo), input rate 48 kHz, no output gain.
    static func opusHead(channels: UInt8, preSkip: UInt16) -> [UInt8] {
        Array("OpusHead".utf8) + [1, channels, UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
            + [0x80, 0xBB, 0x00, 0x00]  // 48,000, little-endian
            + [0, 0, 0]  // output gain 0, mapping family 0
    }
}
