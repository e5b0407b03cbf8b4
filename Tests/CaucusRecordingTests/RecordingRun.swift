import CaucusMedia
import Foundation

@testable import CaucusRecording

/// A location being recorded, as the forwarding path will drive it: one clock, a recorder and
/// its files per track, a timeline; inputs fed in arrival order. It also notes where each
/// block and cluster lies in each file, for the truncation tests.
final class RecordingRun {
    struct Block {
        var offset: Int
        var end: Int
        var startsCluster: Bool
    }

    let folder: URL
    var clock = LocationClock()
    private var tracks: [UInt32: (recorder: TrackRecorder, files: TrackRecordingFiles, user: String, kind: TimelineEvent.MediaKind)] = [:]
    private(set) var timeline: TimelineFile
    /// Per file name: its header's length and its blocks, in order.
    private(set) var layout: [String: (header: Int, blocks: [Block])] = [:]
    private var openFile: [UInt32: String] = [:]
    private(set) var keyframeRequests: [UInt32: Int] = [:]
    /// Per file name: the location-clock time of its time 0 (µs).
    private(set) var fileOffsets: [String: Int64] = [:]

    /// Whether the folder is the run's own, removed with it (not one a test gave).
    private let ownsFolder: Bool

    /// Records into `folder` (a temporary folder of its own when nil), a location's timeline
    /// naming `location`, its clock's 0 at Unix time `wallClock` (ms).
    init(folder given: String? = nil, location: String = "room-1", wallClock: Int64 = 0) throws {
        folder = given.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recording-\(UUID().uuidString)")
        ownsFolder = given == nil
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        timeline = try TimelineFile(creatingAt: folder.appendingPathComponent("timeline.jsonl").path, location: location, wallClock: wallClock)
    }

    deinit { if ownsFolder { try? FileManager.default.removeItem(at: folder) } }

    /// A run that recorded `publishers` from their first input to `end` (arrival time, s),
    /// finished unless `finish` is false (a server that died there).
    static func of(
        _ publishers: [SyntheticPublisher], until end: Double = .infinity, finish: Bool = true, folder: String? = nil,
        location: String = "room-1", wallClock: Int64 = 0
    ) throws -> RecordingRun {
        let run = try RecordingRun(folder: folder, location: location, wallClock: wallClock)
        for publisher in publishers { try run.record(publisher) }
        try run.feed(publishers.flatMap { try $0.inputs() }, until: end)
        if finish { try run.finish() }
        return run
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func record(_ publisher: SyntheticPublisher) throws {
        if publisher.audio != nil { try add(ssrc: publisher.audioSSRC, codec: .opus, user: publisher.name, kind: .audio) }
        if publisher.video != nil {
            try add(ssrc: publisher.videoSSRC, codec: publisher.h264 == nil ? .vp8 : .h264, user: publisher.name, kind: .video)
        }
    }

    private func add(ssrc: UInt32, codec: TrackRecorder.Codec, user: String, kind: TimelineEvent.MediaKind) throws {
        var recorder = TrackRecorder(ssrc: ssrc, codec: codec, trackUID: UInt64(ssrc), trackName: user)
        let files = TrackRecordingFiles(folder: folder.path, baseName: RecordingLayout.baseName(user: user, kind: kind))
        let actions = recorder.start()
        tracks[ssrc] = (recorder, files, user, kind)
        try perform(actions, ssrc: ssrc)
    }

    /// Feeds every input in arrival order (a stable sort: packets of one instant keep their order).
    func feed(_ inputs: [SyntheticPublisher.Timed], until end: Double = .infinity) throws {
        for timed in inputs.enumerated().sorted(by: { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }).map(\.element)
        where timed.arrival <= end {
            switch timed.input {
            case .report(let report, let publisher, let clockRate):
                try clock.receive(report, publisher: publisher, clockRate: clockRate, arrival: Int64(timed.arrival * 1_000_000))
            case .packet(let packet):
                guard var track = tracks[packet.ssrc] else { continue }
                let actions = track.recorder.receive(packet, clock: clock)
                tracks[packet.ssrc] = track
                try perform(actions, ssrc: packet.ssrc)
            }
        }
    }

    func finish() throws {
        for ssrc in tracks.keys.sorted() {
            guard var track = tracks[ssrc] else { continue }
            let actions = track.recorder.finish(clock: clock)
            tracks[ssrc] = track
            try perform(actions, ssrc: ssrc)
        }
        timeline.close()
    }

    /// Where a whole cluster's SimpleBlocks lie once written at `offset`: the first one's
    /// place starts at the cluster's head (the bytes it starts), each one's ends at the next.
    static func blocks(ofCluster bytes: [UInt8], at offset: Int) -> [Block] {
        var blocks: [Block] = []
        var index = 4 + 8  // the Cluster's ID and its unknown size
        while index < bytes.count {
            let idLength = bytes[index].leadingZeroBitCount + 1
            let sizeLength = bytes[index + idLength].leadingZeroBitCount + 1
            var size = Int(bytes[index + idLength] & (0xFF >> sizeLength))
            for byte in bytes[(index + idLength + 1)..<(index + idLength + sizeLength)] { size = size << 8 | Int(byte) }
            let end = index + idLength + sizeLength + size
            if bytes[index] == 0xA3 {
                blocks.append(Block(offset: offset + (blocks.isEmpty ? 0 : index), end: offset + end, startsCluster: blocks.isEmpty))
            }
            index = end
        }
        return blocks
    }

    func counters(_ ssrc: UInt32) -> TrackRecorder.Counters? { tracks[ssrc]?.recorder.counters }

    private func perform(_ actions: [TrackRecorderAction], ssrc: UInt32) throws {
        guard let track = tracks[ssrc] else { return }
        for action in actions {
            switch action {
            case .startFile(let start):
                let name = TrackRecordingFiles.fileName(baseName: track.files.baseName, index: start.index, fileExtension: start.fileExtension)
                layout[name] = (start.header.bytes.count, [])
                openFile[ssrc] = name
            case .writeCluster(let bytes, _):
                if let name = openFile[ssrc], let file = layout[name] {
                    let offset = file.blocks.last?.end ?? file.header
                    layout[name]?.blocks += Self.blocks(ofCluster: bytes, at: offset)
                }
            default:
                break
            }
        }
        for notice in try track.files.perform(actions) {
            switch notice {
            case .requestKeyframe:
                keyframeRequests[ssrc, default: 0] += 1
            case .fileStarted(let name, let start):
                let size = start.codec.pictureSize
                fileOffsets[name] = start.clockOffset
                try timeline.append(TimelineEvent(
                    time: (start.clockOffset + 500) / 1_000,
                    .fileStarted(
                        user: track.user, kind: track.kind, file: name, codec: start.codec.name, width: size?.width ?? 0,
                        height: size?.height ?? 0)))
            case .fileEnded(let name, let end, _):
                try timeline.append(TimelineEvent(
                    time: (fileOffsets[name] ?? 0) / 1_000 + end.durationMilliseconds,
                    .fileEnded(user: track.user, kind: track.kind, file: name, durationMilliseconds: end.durationMilliseconds, reason: end.reason.rawValue)))
            }
        }
    }

    /// The timeline's lines as objects.
    func timelineEvents() throws -> [[String: Any]] {
        try String(contentsOf: folder.appendingPathComponent("timeline.jsonl"), encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }
}
