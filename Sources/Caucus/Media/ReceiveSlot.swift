internal import CaucusMedia

/// One receive slot's stream, as the SDK reads it: a small jitter buffer (the frame
/// assembler, which holds frames behind a gap), NACKs for missing video packets, and keyframe
/// requests when a picture cannot be completed. Pure: fed packets and the time, it returns
/// frames to deliver and feedback to send.
///
/// Video is delivered only from a keyframe on, after the slot starts, after its publisher
/// changes (a move re-points the slot) and after any loss: a decoder never gets a frame whose
/// references it lacks, and the slot asks for a keyframe (PLI) meanwhile, at most every
/// ``keyframeRequestInterval``.
struct ReceiveSlot {
    /// What one packet or tick produced.
    struct Output: Equatable {
        var frames: [EncodedFrame] = []
        /// Sequence numbers to ask for again (generic NACK).
        var nacks: [UInt16] = []
        var requestKeyframe = false
    }

    /// A packet not yet here, since when it is awaited, and how often it was asked for.
    private struct Missing {
        var since: Duration
        var lastAsked: Duration
        var asked: Int
    }

    /// How long a gap may hold frames back before they are given up on: long enough for a
    /// NACK's round trip or two for video; for audio, a couple of frames.
    static func patience(for codec: MediaCodec) -> Duration {
        codec != .opus ? .milliseconds(300) : .milliseconds(60)
    }
    static let nackRetryInterval = Duration.milliseconds(100)
    static let maximumNacks = 3
    static let keyframeRequestInterval = Duration.milliseconds(300)
    /// Further than this past the newest, a gap is a jump of the stream (a new source, or the
    /// server's skip past what cannot be repaired, `SlotRewriter.staleSkip`), not loss: the
    /// slot starts again at the packet after it.
    static let largestGap: UInt16 = 512

    let codec: MediaCodec
    /// What arrived, for the slot's RTCP reception report.
    var reception: ReceptionStatistics
    private var assembler: FrameAssembler
    private var newest: UInt16?
    private var missing: [UInt16: Missing] = [:]
    private var awaitingKeyframe: Bool
    private var lastKeyframeRequest: Duration?
    /// The ID the answer gave RFC 6464 audio levels on this slot's section (audio only).
    private let audioLevelID: UInt8?
    /// Levels of audio packets not delivered yet, by timestamp (an Opus frame is one packet).
    private var levels: [UInt32: Int] = [:]

    init(codec: MediaCodec, audioLevelID: UInt8? = nil) {
        self.codec = codec
        self.audioLevelID = codec == .opus ? audioLevelID : nil
        switch codec {
        case .opus: assembler = FrameAssembler(codec: .opus)
        case .vp8: assembler = FrameAssembler(codec: .vp8)
        case .h264: assembler = FrameAssembler(codec: .h264)
        }
        reception = ReceptionStatistics(clockRate: codec.clockRate)
        awaitingKeyframe = codec != .opus
    }

    /// The slot's publisher changed: video waits for the new one's keyframe.
    mutating func publisherChanged(now: Duration) -> Output {
        guard isVideo else { return Output() }
        awaitingKeyframe = true
        var output = Output()
        askForKeyframe(now: now, into: &output)
        return output
    }

    mutating func receive(_ packet: RTPPacket, now: Duration) -> Output {
        var output = Output()
        let number = packet.sequenceNumber
        reception.record(sequenceNumber: number, timestamp: packet.timestamp, arrival: now)
        if let audioLevelID, let level = packet.headerExtension?.element(id: audioLevelID)?.first {
            if levels.count >= 64 { levels.removeAll() }
            levels[packet.timestamp] = -Int(level & 0x7F)
        }
        if missing.removeValue(forKey: number) == nil, let newest {
            let ahead = number &- newest
            if ahead >= Self.largestGap, ahead < 0x8000 {
                // A jump: a new stream on the slot, or the server's skip past packets that will
                // never come. What was held before it will never complete: start again here.
                assembler = FrameAssembler(codec: assembler.codec)
                missing.removeAll()
                if isVideo { awaitingKeyframe = true }
            } else if ahead > 1, ahead < Self.largestGap {
                for offset in 1..<ahead { missing[newest &+ offset] = Missing(since: now, lastAsked: now, asked: isVideo ? 1 : 0) }
                if isVideo { output.nacks = (1..<ahead).map { newest &+ $0 } }
            }
        }
        if newest.map({ Self.isNewer(number, than: $0) }) ?? true { newest = number }
        take(assembler.receive(packet), now: now, into: &output)
        return output
    }

    /// NACKs again what is still missing, and gives up on gaps held longer than the patience.
    mutating func tick(now: Duration) -> Output {
        var output = Output()
        guard !missing.isEmpty else { return output }
        if isVideo {
            for (number, entry) in missing where entry.asked < Self.maximumNacks && now - entry.lastAsked >= Self.nackRetryInterval {
                missing[number]?.asked += 1
                missing[number]?.lastAsked = now
                output.nacks.append(number)
            }
            output.nacks.sort { Self.isNewer($1, than: $0) }
        }
        let patience = Self.patience(for: codec)
        if missing.values.contains(where: { now - $0.since >= patience }) {
            missing = missing.filter { now - $0.value.since < patience }
            take(assembler.skipMissing(), now: now, into: &output)
        }
        return output
    }

    private mutating func take(_ events: [FrameAssemblyEvent], now: Duration, into output: inout Output) {
        for event in events {
            switch event {
            case .frame(let frame):
                if isVideo {
                    if awaitingKeyframe, !frame.isKeyframe {
                        askForKeyframe(now: now, into: &output)
                        continue
                    }
                    awaitingKeyframe = false
                }
                output.frames.append(EncodedFrame(
                    codec: codec, bytes: frame.bytes, timestamp: frame.timestamp, isKeyframe: frame.isKeyframe,
                    audioLevel: levels.removeValue(forKey: frame.timestamp)))
            case .lost(let loss):
                for offset in 0..<loss.count { missing[loss.firstSequenceNumber &+ UInt16(truncatingIfNeeded: offset)] = nil }
                if isVideo {
                    awaitingKeyframe = true
                    askForKeyframe(now: now, into: &output)
                }
            }
        }
    }

    private var isVideo: Bool { codec != .opus }

    /// RFC 3550's serial-number order of 16-bit sequence numbers.
    private static func isNewer(_ a: UInt16, than b: UInt16) -> Bool { a != b && (a &- b) < 0x8000 }

    private mutating func askForKeyframe(now: Duration, into output: inout Output) {
        if let last = lastKeyframeRequest, now - last < Self.keyframeRequestInterval { return }
        lastKeyframeRequest = now
        output.requestKeyframe = true
    }
}
