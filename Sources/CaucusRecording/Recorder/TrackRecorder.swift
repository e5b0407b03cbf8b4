import CaucusMedia

/// Records one published track (one SSRC) into WebM files (Matroska for H.264), without decoding: fed its RTP
/// packets (or frames already reassembled) and the location's clock, it returns what to
/// write. Pure: a shell performs the actions (``TrackRecordingFiles``).
///
/// Rules:
/// - Frames are reassembled from RTP by CaucusMedia's ``FrameAssembler`` (VP8 and H.264 from
///   their payloads, Opus one packet per frame), in order, each once. H.264 access units are
///   written as length-prefixed NAL units (``H264TrackFormat``).
/// - Times come from the ``LocationClock``: a file starts at its first frame's capture time on
///   the location's clock, and its frames keep the sender's spacing, moved toward the clock
///   only when it disagrees by more than its estimate's jitter (``FrameTiming``); they
///   strictly increase. Frames wait (up to ``maximumHeldFrames`` and ``maximumHeldBytes``, the
///   oldest dropped first) until the track's first sender report makes its timestamps map.
/// - Video starts at a keyframe: until one comes, frames are dropped and a keyframe is
///   requested (at once, then every half second of stream time). A lost frame makes what
///   follows undecodable, so a loss does the same; audio keeps going, its gap left a gap.
/// - A keyframe of another picture size ends the file and starts the next; so does an H.264
///   keyframe of other parameter sets (its file's CodecPrivate would not describe it), and the
///   sender's clock jumping back (video going on at the next keyframe, asked for at once). An
///   H.264 keyframe starts a file only once an SPS and a PPS were seen (in it or before).
/// - Nothing is ever filled in: a gap in the stream is a gap in the file. Audio waits for a
///   missing packet (reordered, or resent) at most ``audioPatience`` packets, about half a
///   second, then leaves the gap: what follows is not held back longer than that (nor kept
///   off the direct path). Video waits while the stream runs ``videoPatience`` past the last
///   frame handed out (time for a resend), then reports the loss and asks for a keyframe.
public struct TrackRecorder: Sendable {
    public enum Codec: Hashable, Sendable {
        case opus
        case vp8
        case h264

        /// The RTP clock rate its timestamps count (RFC 7587, RFC 7741, RFC 6184).
        public var clockRate: Int {
            switch self {
            case .opus: return 48_000
            case .vp8, .h264: return 90_000
            }
        }

        var isVideo: Bool { self != .opus }

        var assemblerCodec: FrameAssembler.Codec {
            switch self {
            case .opus: return .opus
            case .vp8: return .vp8
            case .h264: return .h264
            }
        }
    }

    /// One whole frame of the track: what a decoder takes, with its RTP timestamp.
    public struct Frame: Hashable, Sendable {
        public var timestamp: UInt32
        /// Decodes without earlier frames (always true for Opus).
        public var isKeyframe: Bool
        public var bytes: [UInt8]

        public init(timestamp: UInt32, isKeyframe: Bool, bytes: [UInt8]) {
            self.timestamp = timestamp
            self.isKeyframe = isKeyframe
            self.bytes = bytes
        }

        public init(_ frame: AssembledFrame) {
            self.init(timestamp: frame.timestamp, isKeyframe: frame.isKeyframe, bytes: frame.bytes)
        }
    }

    /// How many packets audio runs past a missing one before the gap is given up on: 25 of
    /// WebRTC's 20 ms Opus packets.
    public static let audioPatience = 25
    /// How far, in milliseconds of stream time, video runs past a missing packet before the
    /// gap is given up on: time for a resend (the engine asks for one at once, and again).
    public static let videoPatience = 1_000

    public let ssrc: UInt32
    public let codec: Codec
    /// The files' track UID; never 0.
    public let trackUID: UInt64
    public let trackName: String?
    public let maximumHeldFrames: Int
    /// How many bytes of frames wait for the clock at most (8 MiB by default): a publisher who
    /// never sends a usable sender report must not make the server hold 512 frames of any size
    /// (a video frame may span the reassembly's 1,024 packets).
    public let maximumHeldBytes: Int
    public let clusterSpan: Int64
    public private(set) var counters = Counters()

    private var assembler: FrameAssembler
    private var held: [Frame] = []
    /// The bytes of the frames in ``held``.
    private var heldBytes = 0
    private var file: OpenFile?
    private var nextFileIndex = 0
    private var waitingForKeyframe: Bool
    /// The timestamp of the frame at which a keyframe was last requested.
    private var lastKeyframeRequest: UInt32?
    /// A request went out on a loss, with no frame to date it: the next dropped frame does.
    private var requestedOnLoss = false
    private var finished = false
    /// The RTP timestamp of the last frame the reassembly handed out (video): how long a gap
    /// has been waited for.
    private var lastFrameTimestamp: UInt32?
    /// H.264's parameter sets seen so far (unused for other codecs).
    private var h264 = H264TrackFormat()

    public init(
        ssrc: UInt32, codec: Codec, trackUID: UInt64, trackName: String? = nil, firstSequenceNumber: UInt16? = nil,
        maximumHeldFrames: Int = 512, maximumHeldBytes: Int = 8 << 20, clusterSpan: Int64 = 1_000, firstFileIndex: Int = 0
    ) {
        self.ssrc = ssrc
        self.codec = codec
        self.trackUID = max(trackUID, 1)
        self.trackName = trackName
        self.maximumHeldFrames = max(maximumHeldFrames, 1)
        self.maximumHeldBytes = max(maximumHeldBytes, 1)
        self.clusterSpan = clusterSpan
        self.assembler = FrameAssembler(
            codec: codec.assemblerCodec, firstSequenceNumber: firstSequenceNumber, maximumSpan: codec.isVideo ? 1_024 : Self.audioPatience)
        self.waitingForKeyframe = codec.isVideo
        self.nextFileIndex = max(firstFileIndex, 0)
    }

    /// The index the next file will have (`firstFileIndex`, then one more per file).
    public var fileIndex: Int { nextFileIndex }

    /// Whether a file is open.
    public var isWriting: Bool { file != nil }

    /// The first actions: a video track asks for a keyframe at once rather than waiting for
    /// the next one.
    public mutating func start() -> [TrackRecorderAction] {
        guard codec.isVideo, !finished else { return [] }
        requestedOnLoss = true
        return [.requestKeyframe]
    }

    /// Takes one RTP packet of the track (after SRTP), as a datagram. The common cases, the
    /// next packet in order, with its time known, holding a whole frame (every Opus packet; a
    /// VP8 picture in one packet), go straight into the cluster: no copy of their own, no
    /// buffering, no actions but a completed cluster. Everything else takes the path of
    /// ``receive(_:clock:)-(RTPPacket,_)``, and comes out the same.
    public mutating func receive(datagram: [UInt8], clock: LocationClock) -> [TrackRecorderAction] {
        receive(datagram: datagram[...], mapping: clock.mapping(of: ssrc)) { clock }
    }

    /// The same, for a datagram that lies in a larger buffer (a batch of recorded packets):
    /// read in place, copied only when it takes the other path. The direct path reads only the
    /// track's `mapping` as the caller keeps it (``LocationClock/mapping(of:)``); `clock` is
    /// asked for on the other path alone (a clock held in a class and handed over per packet
    /// was copied per packet, its four dictionaries retained and released: docs/benchmarks.md).
    public mutating func receive(
        datagram: ArraySlice<UInt8>, mapping: LocationClock.Mapping?, clock: () -> LocationClock
    ) -> [TrackRecorderAction] {
        guard !finished else { return [] }
        assert(mapping == clock().mapping(of: ssrc), "the caller's mapping is the clock's")
        if codec != .h264, held.isEmpty, let mapping, mapping.ssrc == ssrc, let payload = RTPHeaderFields.payloadRange(of: datagram),
            !payload.isEmpty, RTPHeaderFields.ssrc(of: datagram) == ssrc, let timestamp = RTPHeaderFields.timestamp(of: datagram),
            let sequenceNumber = RTPHeaderFields.sequenceNumber(of: datagram)
        {
            let time = mapping.time(ofRTP: timestamp)
            if codec == .opus, assembler.takeWholeFrame(sequenceNumber: sequenceNumber) {
                return place(datagram[payload], isKeyframe: true, timestamp: timestamp, at: time)
            }
            if codec == .vp8, let frame = VP8Payload.wholeFrame(in: datagram[payload]),
                assembler.takeWholeFrame(sequenceNumber: sequenceNumber, endsFrame: datagram[datagram.startIndex + 1] & 0x80 != 0)
            {
                lastFrameTimestamp = timestamp
                return place(datagram[frame.frameStart..<payload.upperBound], isKeyframe: frame.isKeyframe, timestamp: timestamp, at: time)
            }
        }
        guard let packet = try? RTPPacket(decoding: Array(datagram)) else {
            counters.refused += 1
            return []
        }
        return receive(packet, clock: clock())
    }

    /// Takes one RTP packet of the track (after SRTP).
    public mutating func receive(_ packet: RTPPacket, clock: LocationClock) -> [TrackRecorderAction] {
        guard !finished else { return [] }
        guard packet.ssrc == ssrc else {
            counters.refused += 1
            return []
        }
        let refused = assembler.counters.late + assembler.counters.duplicates
        let actions = handle(assembler.receive(packet), clock: clock)
        // A late or repeated packet (a repair after its gap was given up) tells nothing of where
        // the stream is now: its old timestamp is no jump back.
        guard assembler.counters.late + assembler.counters.duplicates == refused else { return actions }
        return actions + giveUpOnAStaleGap(at: packet.timestamp, clock: clock)
    }

    /// Video waits for a missing packet (a resend) while the stream runs at most
    /// ``videoPatience`` milliseconds past the last frame handed out; then the gap is given
    /// up on, reported lost (a keyframe asked for), and what follows goes on. Without it, the
    /// assembler would wait its whole span: over a minute of a low-rate stream.
    private mutating func giveUpOnAStaleGap(at timestamp: UInt32, clock: LocationClock) -> [TrackRecorderAction] {
        guard codec.isVideo else { return [] }
        let patience = codec.clockRate / 1_000 * Self.videoPatience
        let waited = lastFrameTimestamp.map { Int(Int32(bitPattern: timestamp &- $0)) }
        // No frame yet, or the timestamps jumped back (a restarted encoder, a new base read as a
        // step back: measured from the old frame the wait would never end): counted from here.
        guard let waited, waited >= -patience else {
            lastFrameTimestamp = timestamp
            return []
        }
        guard waited > patience, assembler.bufferedPacketCount > 0 else { return [] }
        return handle(assembler.skipMissing(), clock: clock)
    }

    /// Takes one whole frame of the track (reassembled elsewhere), in order.
    public mutating func receive(_ frame: Frame, clock: LocationClock) -> [TrackRecorderAction] {
        guard !finished else { return [] }
        held.append(frame)
        heldBytes += frame.bytes.count
        guard clock.isMapped(ssrc) else {
            // The oldest go first, past either ceiling; the newest frame always stays.
            var dropped = 0
            while held.count - dropped > 1, held.count - dropped > maximumHeldFrames || heldBytes > maximumHeldBytes {
                heldBytes -= held[dropped].bytes.count
                dropped += 1
            }
            if dropped > 0 {
                counters.framesWaitingForClock += dropped
                held.removeFirst(dropped)
            }
            return []
        }
        var actions: [TrackRecorderAction] = []
        for frame in held {
            guard let time = clock.time(ofRTP: frame.timestamp, ssrc: ssrc) else { continue }
            actions += place(frame.bytes[...], isKeyframe: frame.isKeyframe, timestamp: frame.timestamp, at: time)
        }
        held = []
        heldBytes = 0
        return actions
    }

    /// A frame was lost (reassembled elsewhere): video waits for the next keyframe.
    public mutating func frameLost() -> [TrackRecorderAction] {
        guard !finished else { return [] }
        counters.losses += 1
        guard codec.isVideo else { return [] }
        waitingForKeyframe = true
        requestedOnLoss = true
        return [.requestKeyframe]
    }

    /// The end of recording this track: writes what can be, closes the file. Nothing after.
    public mutating func finish(clock: LocationClock) -> [TrackRecorderAction] {
        guard !finished else { return [] }
        var actions = handle(assembler.finish(), clock: clock)
        actions += endFile(reason: .finished)
        finished = true
        held.removeAll()
        heldBytes = 0
        return actions
    }

    // MARK: - Placing frames

    private mutating func handle(_ events: [FrameAssemblyEvent], clock: LocationClock) -> [TrackRecorderAction] {
        var actions: [TrackRecorderAction] = []
        for event in events {
            switch event {
            case .frame(let frame):
                lastFrameTimestamp = frame.timestamp
                actions += receive(Frame(frame), clock: clock)
            case .lost: actions += frameLost()
            }
        }
        return actions
    }

    /// A frame's block placed in the open file: one file started first if none is open (at a
    /// keyframe, for video) or one ended if the stream changed (size, parameters, clock).
    private mutating func place(_ bytes: ArraySlice<UInt8>, isKeyframe: Bool, timestamp: UInt32, at time: Int64) -> [TrackRecorderAction] {
        // The codec a keyframe's file needs (its size, H.264's parameter sets); nil for others.
        // The frame is handed on as it came, never bound to a variable of its own: bound, the
        // slice retained and released the batch's buffer for every frame (its removal made no
        // difference the writer's samples can show: docs/benchmarks.md).
        switch codec {
        case .opus:
            return place(block: bytes, isKeyframe: isKeyframe, keyframeCodec: .opus(), timestamp: timestamp, at: time)
        case .vp8:
            let size = isKeyframe ? VP8KeyframeSize.of(bytes) : nil
            return place(
                block: bytes, isKeyframe: isKeyframe, keyframeCodec: size.map { .vp8(width: $0.width, height: $0.height) },
                timestamp: timestamp, at: time)
        case .h264:
            let (block, described) = h264.take(Array(bytes), isKeyframe: isKeyframe)
            return place(block: block[...], isKeyframe: isKeyframe, keyframeCodec: described, timestamp: timestamp, at: time)
        }
    }

    private mutating func place(
        block bytes: ArraySlice<UInt8>, isKeyframe: Bool, keyframeCodec: WebMTrack.Codec?, timestamp: UInt32, at time: Int64
    ) -> [TrackRecorderAction] {
        var actions: [TrackRecorderAction] = []
        if codec.isVideo {
            if waitingForKeyframe, keyframeCodec == nil {
                counters.framesWaitingForKeyframe += 1
                return requestKeyframeIfDue(at: timestamp)
            }
            waitingForKeyframe = false
            if let keyframeCodec, let openCodec = file?.codec, openCodec != keyframeCodec {
                let (old, new) = (openCodec.pictureSize, keyframeCodec.pictureSize)
                let sameSize = old?.width == new?.width && old?.height == new?.height
                actions += endFile(reason: sameSize ? .parametersChanged : .resolutionChanged)
            }
        }
        // Read through the optional, not bound to a copy: a copy of the open file would retain
        // (then release) its muxer's and cluster's buffers for every frame.
        if file?.timing.jumpsBack(ofRTP: timestamp, mapped: time) == true {
            actions += endFile(reason: .clockJumpedBack)
            // Video goes on in the next file from a keyframe: this one, or the next, asked for now.
            if keyframeCodec == nil {
                waitingForKeyframe = true
                counters.framesWaitingForKeyframe += 1
                lastKeyframeRequest = timestamp
                return actions + [.requestKeyframe]
            }
        }
        if file == nil, let keyframeCodec {
            actions += startFile(at: time, timestamp: timestamp, codec: keyframeCodec)
        }
        guard file != nil else { return actions }
        let last = file!.muxer.lastTimestamp ?? 0
        let milliseconds = file!.timing.milliseconds(ofRTP: timestamp, mapped: time)
        do throws(WebMMuxerError) {
            if let completed = try file!.append(bytes, isKeyframe: isKeyframe, at: milliseconds) {
                actions.append(.writeCluster(completed, durationMilliseconds: last))
            }
        } catch {
            counters.refused += 1
            return actions
        }
        counters.framesWritten += 1
        return actions
    }

    private mutating func requestKeyframeIfDue(at timestamp: UInt32) -> [TrackRecorderAction] {
        if requestedOnLoss {
            requestedOnLoss = false
            lastKeyframeRequest = timestamp
            return []
        }
        // At most every half second of the stream; a frame before the last request is the
        // sender's timestamps jumping back (or 2^31 ticks ahead): asked again, counted from there.
        if let last = lastKeyframeRequest, (0..<codec.clockRate / 2).contains(Int(Int32(bitPattern: timestamp &- last))) { return [] }
        lastKeyframeRequest = timestamp
        return [.requestKeyframe]
    }

    private mutating func startFile(at time: Int64, timestamp: UInt32, codec trackCodec: WebMTrack.Codec) -> [TrackRecorderAction] {
        let track = WebMTrack(number: 1, uid: trackUID, codec: trackCodec, name: trackName)
        guard let muxer = try? WebMMuxer(tracks: [track], docType: trackCodec.docType, clusterSpan: clusterSpan) else { return [] }
        let index = nextFileIndex
        nextFileIndex += 1
        file = OpenFile(
            index: index, muxer: muxer, timing: FrameTiming(clockRate: codec.clockRate, rtpTimestamp: timestamp, origin: time), codec: trackCodec)
        return [.startFile(RecordingFileStart(index: index, header: muxer.header(), codec: trackCodec, clockOffset: time))]
    }

    private mutating func endFile(reason: RecordingFileEnd.Reason) -> [TrackRecorderAction] {
        guard let open = file else { return [] }
        file = nil
        let duration = open.muxer.lastTimestamp ?? 0
        let last: [TrackRecorderAction] = open.cluster.isEmpty ? [] : [.writeCluster(open.cluster, durationMilliseconds: duration)]
        return last + [.endFile(RecordingFileEnd(index: open.index, durationMilliseconds: duration, reason: reason))]
    }
}
