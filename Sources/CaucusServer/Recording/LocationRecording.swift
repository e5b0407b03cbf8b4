import CaucusMedia
import CaucusRecording
import CaucusSFU
import Foundation

/// One recorded location on the media loop: its clock, its timeline and, per recorded stream,
/// a ``TrackRecorder`` writing its files (docs/recording.md). Fed what the forwarding engine
/// hands over for the location's publishers; every file error is thrown to the caller, which
/// stops the location and says why. Confined to the session's media loop.
final class LocationRecording {
    /// One recorded stream: its recorder on the SSRC it came on, its clock mapping, and where
    /// its files go. Held in place in ``slots`` (no class per track: a packet reaches its
    /// recorder through two array reads, with no hashing and no reference counted).
    private struct Slot {
        var recorder: TrackRecorder
        let output: TrackOutput
        let stream: PublishedStream
        /// The clock's mapping of the recorder's SSRC, kept up as the clock changes.
        var mapping: LocationClock.Mapping?
    }

    /// The shell writing a stream's files, and the names its timeline lines give it: one
    /// reference to hand around per packet.
    private final class TrackOutput {
        let files: TrackRecordingFiles
        let kind: TimelineEvent.MediaKind
        let user: String

        init(files: TrackRecordingFiles, kind: TimelineEvent.MediaKind, user: String) {
            self.files = files
            self.kind = kind
            self.user = user
        }
    }

    let location: RecordingLocation
    let folder: String
    private var clock = LocationClock()
    private let timeline: TimelineFile
    /// The media loop's time of the location clock's 0.
    private let origin: Duration
    private var slots: ContiguousArray<Slot> = []
    /// Each recorded stream's place in ``slots``, by publisher × 3 + kind (-1: none). An array,
    /// not a dictionary: hashing per packet cost the writer measurably (docs/benchmarks.md).
    /// Its length follows the highest publisher number recorded here: user numbers count a
    /// session's users from 1, so a location of a session that saw 10,000 users holds 120 KB.
    private var slotOf: [Int32] = []
    /// The publishers recorded here now.
    private var publishers: Set<Int> = []
    /// Streams whose recorder asks for a keyframe (the engine asks the publisher).
    private(set) var keyframesWanted: [PublishedStream] = []
    /// The loudest speaker last written (`spoke`).
    var loudest: Int?
    /// Bytes written to files since the last ``takeBytesWritten()``.
    private var bytesWritten = 0
    /// The next free index of each base name's files (`u7-audio`: 3 after `u7-audio-2.webm`):
    /// from one listing of the folder when a track first starts (files recorded before, here or
    /// by a server that had the session), then kept up as files start. Files are never
    /// overwritten, and a track's start does not list a folder that grows every round.
    private var nextFileIndexes: [String: Int]?

    /// Opens the location's folder (with `session.json` the first time) and its timeline: a new
    /// one whose clock starts now, or the one already there (the location recorded before, by
    /// this server or one that took the session over), whose clock's 0 stays where it was.
    init(
        _ location: RecordingLocation, of record: RecordingSessionRecord, layout: RecordingLayout, now: Duration, wallClock: Int64
    ) throws {
        self.location = location
        folder = try layout.prepare(record, location: location)
        let path = folder + "/" + RecordingLayout.timelineFileName
        if let (file, started) = try TimelineFile.continuing(at: path) {
            timeline = file
            origin = now - .milliseconds(wallClock - started)
        } else {
            timeline = try TimelineFile(creatingAt: path, location: location.name, wallClock: wallClock)
            origin = now
        }
    }

    /// Microseconds on the location's clock at the media loop's `now`.
    func microseconds(at now: Duration) -> Int64 {
        let (seconds, attoseconds) = (now - origin).components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    func note(_ what: TimelineEvent.What, at now: Duration) throws(RecordingFileError) {
        try timeline.append(TimelineEvent(time: microseconds(at: now) / 1_000, what))
    }

    func record(_ publisher: Int) { publishers.insert(publisher) }

    /// Ends `publisher`'s files here (it left, moved away, or stopped being recorded). A file
    /// that fails (the one whose error stops the location, already abandoned) does not keep
    /// the publisher's others from ending whole: each is ended, the first error thrown after.
    func finish(_ publisher: Int, at now: Duration) throws(RecordingFileError) {
        publishers.remove(publisher)
        var failure: RecordingFileError?
        for kind in StreamKind.allCases.sorted(by: { $0.rawValue < $1.rawValue }) {
            let stream = PublishedStream(publisher: publisher, kind: kind)
            guard let index = slotIndex(of: stream) else { continue }
            var slot = removeSlot(at: index)
            do throws(RecordingFileError) {
                try perform(slot.recorder.finish(clock: clock), of: slot.output, stream, at: now)
            } catch {
                failure = failure ?? error
            }
        }
        clock.forget(publisher: RecordingRoster.userName(publisher))
        refreshMappings()
        if let failure { throw failure }
    }

    /// Ends every file, writes `recordingStopped` with `reason` and closes the timeline. A
    /// failing file does not keep the others open: each is ended, the first error thrown after.
    func stop(reason: String, at now: Duration) throws(RecordingFileError) {
        var failure: RecordingFileError?
        for publisher in publishers.union(slots.map(\.stream.publisher)).sorted() {
            do throws(RecordingFileError) { try finish(publisher, at: now) } catch { failure = failure ?? error }
        }
        do throws(RecordingFileError) { try note(.recordingStopped(reason: reason), at: now) } catch { failure = failure ?? error }
        timeline.close()
        if let failure { throw failure }
    }

    /// A recorded publisher's packet. A stream's first packet starts its recorder (a video one
    /// asks for a keyframe at once); a packet on a new SSRC (a new peer, another simulcast
    /// layer) or in another codec (on the same SSRC) ends the stream's file and starts the next.
    func receive(_ datagram: ArraySlice<UInt8>, of stream: PublishedStream, codec: TrackRecorder.Codec?, at now: Duration) throws(RecordingFileError) {
        guard let ssrc = RTPHeaderFields.ssrc(of: datagram) else { return }
        // The common case reads nothing more: a stream with a track is recorded here
        // (``finish(_:at:)`` removes a publisher's tracks).
        if let index = slotIndex(of: stream), slots[index].recorder.ssrc == ssrc, slots[index].recorder.codec == codec {
            return try receive(datagram, slot: index, stream, at: now)
        }
        guard publishers.contains(stream.publisher), let codec else { return }
        if let index = slotIndex(of: stream) {
            var ended = removeSlot(at: index)
            try perform(ended.recorder.finish(clock: clock), of: ended.output, stream, at: now)
            try startTrack(stream, ssrc: ssrc, codec: codec, firstFileIndex: ended.recorder.fileIndex, at: now)
        } else {
            try startTrack(stream, ssrc: ssrc, codec: codec, firstFileIndex: nil, at: now)
        }
        guard let index = slotIndex(of: stream) else { return }
        try receive(datagram, slot: index, stream, at: now)
    }

    private func receive(_ datagram: ArraySlice<UInt8>, slot index: Int, _ stream: PublishedStream, at now: Duration) throws(RecordingFileError) {
        let mapping = slots[index].mapping
        let actions = slots[index].recorder.receive(datagram: datagram, mapping: mapping) { clock }
        guard !actions.isEmpty else { return }
        try perform(actions, of: slots[index].output, stream, at: now)
    }

    /// A recorded publisher's sender report: places its track on the location's clock.
    func receive(_ report: ForwardingEngine.RecordedSenderReport, at now: Duration) {
        guard publishers.contains(report.stream.publisher) else { return }
        try? clock.receive(
            report.report, publisher: RecordingRoster.userName(report.stream.publisher), clockRate: report.clockRate,
            arrival: microseconds(at: now))
        refreshMappings()
    }

    /// Each track's mapping read again from the clock, which changed (a report, a publisher
    /// forgotten): a few tracks, about once a second per stream.
    private func refreshMappings() {
        for index in slots.indices { slots[index].mapping = clock.mapping(of: slots[index].recorder.ssrc) }
    }

    var wantsKeyframes: Bool { !keyframesWanted.isEmpty }

    func takeKeyframesWanted() -> [PublishedStream] {
        defer { keyframesWanted.removeAll() }
        return keyframesWanted
    }

    func takeBytesWritten() -> Int {
        // Asked after every packet, and most write nothing: read, not written back.
        guard bytesWritten > 0 else { return 0 }
        defer { bytesWritten = 0 }
        return bytesWritten
    }

    // MARK: - Tracks

    private func startTrack(_ stream: PublishedStream, ssrc: UInt32, codec: TrackRecorder.Codec, firstFileIndex: Int?, at now: Duration)
        throws(RecordingFileError)
    {
        let user = RecordingRoster.userName(stream.publisher)
        let kind = Self.kind(stream.kind)
        let base = RecordingLayout.baseName(user: user, kind: kind)
        let uidKind: UInt64 = switch stream.kind {
        case .audio: 1
        case .video: 2
        case .screenShare: 3
        }
        var recorder = TrackRecorder(
            ssrc: ssrc, codec: codec, trackUID: UInt64(stream.publisher) << 8 | uidKind, trackName: user,
            firstFileIndex: firstFileIndex ?? nextFileIndex(base: base))
        let output = TrackOutput(files: TrackRecordingFiles(folder: folder, baseName: base), kind: kind, user: user)
        let actions = recorder.start()
        addSlot(Slot(recorder: recorder, output: output, stream: stream, mapping: clock.mapping(of: ssrc)))
        try perform(actions, of: output, stream, at: now)
    }

    // MARK: - Slots

    private static func key(_ stream: PublishedStream) -> Int {
        let kind = switch stream.kind {
        case .audio: 0
        case .video: 1
        case .screenShare: 2
        }
        return stream.publisher * 3 + kind
    }

    private func slotIndex(of stream: PublishedStream) -> Int? {
        let key = Self.key(stream)
        guard key >= 0, key < slotOf.count, slotOf[key] >= 0 else { return nil }
        return Int(slotOf[key])
    }

    private func addSlot(_ slot: Slot) {
        let key = Self.key(slot.stream)
        guard key >= 0 else { return }
        if key >= slotOf.count { slotOf += repeatElement(-1, count: key + 1 - slotOf.count) }
        slotOf[key] = Int32(slots.count)
        slots.append(slot)
    }

    /// Removes the slot at `index`; the last one takes its place.
    private func removeSlot(at index: Int) -> Slot {
        let removed = slots[index]
        slotOf[Self.key(removed.stream)] = -1
        let last = slots.count - 1
        if index != last {
            slots[index] = slots[last]
            slotOf[Self.key(slots[index].stream)] = Int32(index)
        }
        slots.removeLast()
        return removed
    }

    /// One past the highest index of the base name's files in the folder.
    private func nextFileIndex(base: String) -> Int {
        if let known = nextFileIndexes { return known[base, default: 0] }
        var found: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let (base, index) = RecordingLayout.baseNameAndIndex(ofFileName: name) else { continue }
            found[String(base)] = max(found[String(base), default: 0], index + 1)
        }
        nextFileIndexes = found
        return found[base, default: 0]
    }

    private func perform(_ actions: [TrackRecorderAction], of track: TrackOutput, _ stream: PublishedStream, at now: Duration)
        throws(RecordingFileError)
    {
        guard !actions.isEmpty else { return }
        for case .writeCluster(let bytes, _) in actions { bytesWritten += bytes.count }
        for notice in try track.files.perform(actions) {
            switch notice {
            case .requestKeyframe:
                keyframesWanted.append(stream)
            case .fileStarted(let name, let start):
                bytesWritten += start.header.bytes.count
                if let next = nextFileIndexes?[track.files.baseName, default: 0], next <= start.index {
                    nextFileIndexes?[track.files.baseName] = start.index + 1
                }
                let size = start.codec.pictureSize
                try timeline.append(TimelineEvent(
                    time: start.clockOffset / 1_000,
                    .fileStarted(
                        user: track.user, kind: track.kind, file: name, codec: start.codec.name, width: size?.width ?? 0,
                        height: size?.height ?? 0)))
            case .fileEnded(let name, let end, _):
                try note(.fileEnded(
                    user: track.user, kind: track.kind, file: name, durationMilliseconds: end.durationMilliseconds, reason: end.reason.rawValue),
                    at: now)
            }
        }
    }

    /// The recorder's codec for a name the engine hands over (``ForwardingEngine/RecordedPacket``);
    /// nil for one it does not write.
    static func codec(_ name: String) -> TrackRecorder.Codec? {
        switch name {
        case "opus": .opus
        case "vp8": .vp8
        case "h264": .h264
        default: nil
        }
    }

    static func kind(_ kind: StreamKind) -> TimelineEvent.MediaKind {
        switch kind {
        case .audio: .audio
        case .video: .video
        case .screenShare: .screen
        }
    }
}
