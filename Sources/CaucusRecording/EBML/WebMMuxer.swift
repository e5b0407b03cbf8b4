/// Writes a WebM file as it is recorded, front to back, never going back except for one fixed
/// eight-byte field (the duration, see ``WebMHeader``): an EBML header, a Segment of unknown
/// size, its Info and Tracks, then Clusters of unknown size holding SimpleBlocks. Pure: it
/// returns bytes and a shell writes them (``WebMFile``).
///
/// Why unknown sizes: nothing written needs a size known only later, so a file cut off at any
/// byte (the server killed, the disk full) is a valid file up to its last whole block, which
/// `ffprobe`, `ffmpeg` and `mkvinfo` read (RecordingTruncationTests). There are no Cues; a
/// player finds clusters by scanning, and `mkvmerge -o out.webm in.webm` adds an index.
///
/// Clusters: a new one at every video keyframe (so each can be decoded from its start), when
/// ``clusterSpan`` milliseconds have passed since the current one began, and whenever a
/// block's time would not fit the 16 bits a block holds relative to its cluster.
public struct WebMMuxer: Sendable {
    public enum DocType: String, Sendable {
        /// Opus and VP8: what browsers play.
        case webm
        /// Anything else (H.264).
        case matroska

        /// The file name extension of its files: `webm`, `mkv`.
        public var fileExtension: String {
            switch self {
            case .webm: "webm"
            case .matroska: "mkv"
            }
        }
    }

    /// What one ``append(track:timestamp:keyframe:frame:)`` produced.
    public struct Output: Hashable, Sendable {
        /// True when these bytes start a cluster: everything before them is a whole cluster,
        /// the moment for a shell to write it out.
        public var startsCluster: Bool
        /// The file's duration up to the end of what came before these bytes, in milliseconds:
        /// the time of the last block before them.
        public var durationBefore: Int64
        public var bytes: [UInt8]
    }

    public let tracks: [WebMTrack]
    public let docType: DocType
    /// Milliseconds after which a cluster is closed even without a video keyframe.
    public let clusterSpan: Int64

    /// The tracks' numbers, and those of video tracks, as bit sets: what every block checks,
    /// read without touching the tracks' array.
    private let numbers: TrackNumbers
    private let videoNumbers: TrackNumbers
    private var clusterStart: Int64?
    /// The time of the last block written, in milliseconds from the file's start.
    public private(set) var lastTimestamp: Int64?

    /// `tracks` must have distinct numbers in 1...126 and distinct non-zero UIDs, and codecs
    /// WebM holds unless `docType` is Matroska.
    public init(tracks: [WebMTrack], docType: DocType = .webm, clusterSpan: Int64 = 1_000) throws(WebMMuxerError) {
        guard !tracks.isEmpty else { throw .noTracks }
        for track in tracks {
            guard (1...126).contains(track.number) else { throw .trackNumberOutOfRange(track.number) }
            guard track.uid != 0 else { throw .zeroTrackUID }
        }
        guard Set(tracks.map(\.number)).count == tracks.count else { throw .duplicateTrackNumber }
        guard Set(tracks.map(\.uid)).count == tracks.count else { throw .duplicateTrackUID }
        if docType == .webm, let track = tracks.first(where: { $0.codec.docType != .webm }) { throw .notInWebM(track.codec.name) }
        self.tracks = tracks
        numbers = TrackNumbers(tracks.map(\.number))
        videoNumbers = TrackNumbers(tracks.filter(\.codec.isVideo).map(\.number))
        self.docType = docType
        self.clusterSpan = min(max(clusterSpan, 1), Int64(Int16.max))
    }

    /// The file's start: the EBML header, the Segment's head, Info and Tracks.
    public func header() -> WebMHeader {
        var bytes = EBMLElement.element(
            MatroskaID.ebml,
            EBMLElement.unsigned(MatroskaID.ebmlVersion, 1) + EBMLElement.unsigned(MatroskaID.ebmlReadVersion, 1)
                + EBMLElement.unsigned(MatroskaID.ebmlMaxIDLength, 4) + EBMLElement.unsigned(MatroskaID.ebmlMaxSizeLength, 8)
                + EBMLElement.string(MatroskaID.docType, docType.rawValue)
                + EBMLElement.unsigned(MatroskaID.docTypeVersion, 4) + EBMLElement.unsigned(MatroskaID.docTypeReadVersion, 2))
        bytes += EBMLElement.openMaster(MatroskaID.segment)
        // Info: the duration first, at a fixed place a shell overwrites as clusters complete.
        let durationElement = EBMLElement.float(MatroskaID.duration, 0)
        var info = EBMLElement.unsigned(MatroskaID.timestampScale, 1_000_000)  // 1 ms
        let durationOffsetInInfo = info.count + durationElement.count - 8
        info += durationElement
        info += EBMLElement.string(MatroskaID.muxingApp, "Caucus")
        info += EBMLElement.string(MatroskaID.writingApp, "Caucus")
        let infoElement = EBMLElement.element(MatroskaID.info, info)
        let durationOffset = bytes.count + (infoElement.count - info.count) + durationOffsetInInfo
        bytes += infoElement
        bytes += EBMLElement.element(MatroskaID.tracks, tracks.flatMap { $0.encoded() })
        return WebMHeader(bytes: bytes, durationOffset: durationOffset)
    }

    /// One frame as a SimpleBlock, behind a new cluster's head when one starts here.
    /// `timestamp` is in milliseconds from the file's start, never before the last block's;
    /// `keyframe` marks a frame that decodes alone (every Opus frame; VP8 key frames).
    public mutating func append(track number: UInt8, timestamp: Int64, keyframe: Bool, frame: [UInt8]) throws(WebMMuxerError) -> Output {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frame.count + 24)
        let durationBefore = lastTimestamp ?? 0
        let startsCluster = try append(track: number, timestamp: timestamp, keyframe: keyframe, frame: frame[...], to: &bytes)
        return Output(startsCluster: startsCluster, durationBefore: durationBefore, bytes: bytes)
    }

    /// Whether a block at `timestamp` would start a new cluster (see the type's comment).
    public func startsCluster(track number: UInt8, timestamp: Int64, keyframe: Bool) -> Bool {
        guard let clusterStart, timestamp - clusterStart < clusterSpan, timestamp >= clusterStart else { return true }
        return keyframe && videoNumbers.contains(number)
    }

    /// The same as ``append(track:timestamp:keyframe:frame:)``, written at the end of `bytes`
    /// (a cluster being filled) with no array of its own: the recording path's per-packet
    /// call. Returns whether the block started a cluster. Nothing is written when it throws.
    public mutating func append(
        track number: UInt8, timestamp: Int64, keyframe: Bool, frame: ArraySlice<UInt8>, to bytes: inout [UInt8]
    ) throws(WebMMuxerError) -> Bool {
        guard numbers.contains(number) else { throw .unknownTrack(number) }
        guard timestamp >= 0 else { throw .negativeTimestamp(timestamp) }
        if let lastTimestamp, timestamp < lastTimestamp { throw .timestampWentBack(from: lastTimestamp, to: timestamp) }
        guard !frame.isEmpty else { throw .emptyFrame }
        let startsCluster = startsCluster(track: number, timestamp: timestamp, keyframe: keyframe)
        if startsCluster {
            clusterStart = timestamp
            bytes += EBMLElement.openMaster(MatroskaID.cluster)
            bytes += EBMLElement.unsigned(MatroskaID.clusterTimestamp, UInt64(timestamp))
        }
        let relative = UInt16(bitPattern: Int16(timestamp - (clusterStart ?? timestamp)))
        // SimpleBlock (a one-byte ID): its size, then the track number (a one-byte vint), the
        // 16-bit relative time, flags, the frame. The head (at most 13 bytes) is put together
        // on the stack and appended at once: one growth check for it, one for the frame.
        let (size, sizeLength) = EBMLElement.markedSize(UInt64(4 + frame.count))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { head in
            head[0] = UInt8(truncatingIfNeeded: MatroskaID.simpleBlock)
            for index in 0..<sizeLength { head[1 + index] = UInt8(truncatingIfNeeded: size >> ((sizeLength - 1 - index) * 8)) }
            let end = 1 + sizeLength
            head[end] = 0x80 | number
            head[end + 1] = UInt8(truncatingIfNeeded: relative >> 8)
            head[end + 2] = UInt8(truncatingIfNeeded: relative)
            head[end + 3] = keyframe ? 0x80 : 0x00
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: head[..<(end + 4)]))
        }
        // Through its buffer: appended as a slice, the frame's array was retained and released.
        frame.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
        lastTimestamp = timestamp
        return startsCluster
    }
}

/// A set of track numbers (1...126) in two words.
private struct TrackNumbers: Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init(_ numbers: [UInt8]) {
        for number in numbers where number < 128 {
            if number < 64 { low |= 1 << UInt64(number) } else { high |= 1 << UInt64(number - 64) }
        }
    }

    func contains(_ number: UInt8) -> Bool {
        guard number < 128 else { return false }
        return number < 64 ? low & (1 << UInt64(number)) != 0 : high & (1 << UInt64(number - 64)) != 0
    }
}

/// The bytes a WebM file starts with, and where in them the duration's eight bytes lie (an
/// IEEE 754 double of milliseconds, big-endian, 0 at first): a shell overwrites them as
/// clusters complete, so that a file cut short still tells its length.
public struct WebMHeader: Hashable, Sendable {
    public var bytes: [UInt8]
    public var durationOffset: Int
}

/// Why a ``WebMMuxer`` refused its input; nothing changed.
public enum WebMMuxerError: Error, Hashable, Sendable {
    case noTracks
    case trackNumberOutOfRange(UInt8)
    case zeroTrackUID
    case duplicateTrackNumber
    case duplicateTrackUID
    case unknownTrack(UInt8)
    case negativeTimestamp(Int64)
    case timestampWentBack(from: Int64, to: Int64)
    case emptyFrame
    /// A codec WebM does not hold (H.264): the file must be Matroska.
    case notInWebM(String)
}
