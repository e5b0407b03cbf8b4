import CaucusRecording
import Foundation

/// How `caucus recording compose` makes one file of a location: the `ffmpeg` arguments that
/// place every file at its start on the location's clock, the videos in a grid (one tile per
/// user's camera, one per screen share), the audio mixed. Pure: no file is read or run here.
struct ComposePlan: Equatable {
    struct Input: Equatable {
        var path: String
        var kind: TimelineEvent.MediaKind
        /// The tile a video goes in: its user, and whether it is a screen.
        var tile: String
        /// Milliseconds from the earliest file's start.
        var offset: Int64
        var duration: Int64
    }

    static let tileWidth = 320
    static let tileHeight = 240
    static let framesPerSecond = 25

    var inputs: [Input]
    /// Files left out, with why (not in the timeline, no duration).
    var skipped: [String]
    /// The tiles, in the order of their first file.
    var tiles: [String]
    /// Milliseconds: the latest end of any file.
    var duration: Int64

    var videos: [Input] { inputs.filter { $0.kind != .audio } }
    var audios: [Input] { inputs.filter { $0.kind == .audio } }
    var columns: Int { max(1, Int(Double(tiles.count).squareRoot().rounded(.up))) }
    var rows: Int { tiles.isEmpty ? 0 : (tiles.count + columns - 1) / columns }

    /// The plan of a location read from its folder. The output's time 0 is the earliest
    /// file's start, so it does not open on the seconds before anyone published.
    init(_ location: RecordedLocation) throws(ComposeError) {
        var placed: [(file: RecordedLocation.File, user: String, kind: TimelineEvent.MediaKind, start: Int64, duration: Int64)] = []
        var skipped: [String] = []
        for file in location.files {
            guard let user = file.user, let kind = file.kind, let start = file.start else {
                skipped.append("\(file.name): not in the timeline")
                continue
            }
            guard let duration = file.durationMilliseconds, duration > 0 else {
                skipped.append("\(file.name): no duration (an empty or unreadable file)")
                continue
            }
            placed.append((file, user, kind, start, duration))
        }
        guard let origin = placed.map({ $0.start }).min() else {
            throw ComposeError("\(location.folder) has no recorded file the timeline places" + (skipped.isEmpty ? "" : " (\(skipped.joined(separator: "; ")))"))
        }
        placed.sort { ($0.start, $0.file.name) < ($1.start, $1.file.name) }
        inputs = placed.map { entry in
            Input(
                path: location.folder + "/" + entry.file.name, kind: entry.kind, tile: entry.user + (entry.kind == .screen ? " screen" : ""),
                offset: entry.start - origin, duration: entry.duration)
        }
        var tiles: [String] = []
        for input in inputs where input.kind != .audio && !tiles.contains(input.tile) { tiles.append(input.tile) }
        self.tiles = tiles
        self.skipped = skipped
        duration = inputs.map { $0.offset + $0.duration }.max() ?? 0
    }

    /// `ffmpeg`'s arguments, writing VP8 and Opus WebM to `output` (over an existing file
    /// only with `overwrite`).
    func arguments(output: String, overwrite: Bool) -> [String] {
        var arguments = ["-hide_banner", "-nostdin", "-loglevel", "error", overwrite ? "-y" : "-n"]
        for input in inputs { arguments += ["-i", input.path] }
        var graph: [String] = []
        let seconds = Self.seconds(duration)
        if !videos.isEmpty {
            let (width, height) = (columns * Self.tileWidth, rows * Self.tileHeight)
            graph.append("color=c=black:s=\(width)x\(height):r=\(Self.framesPerSecond):d=\(seconds)[grid0]")
            var step = 0
            for (index, input) in inputs.enumerated() where input.kind != .audio {
                let tile = tiles.firstIndex(of: input.tile) ?? 0
                let (x, y) = ((tile % columns) * Self.tileWidth, (tile / columns) * Self.tileHeight)
                graph.append(
                    "[\(index):v]setpts=PTS-STARTPTS+\(Self.seconds(input.offset))/TB,"
                        + "scale=\(Self.tileWidth):\(Self.tileHeight):force_original_aspect_ratio=decrease,"
                        + "pad=\(Self.tileWidth):\(Self.tileHeight):(ow-iw)/2:(oh-ih)/2,setsar=1[v\(step)]")
                graph.append("[grid\(step)][v\(step)]overlay=x=\(x):y=\(y):eof_action=pass[grid\(step + 1)]")
                step += 1
            }
            graph.append("[grid\(step)]format=yuv420p[video]")
        }
        if !audios.isEmpty {
            var labels = ""
            for (index, input) in inputs.enumerated() where input.kind == .audio {
                graph.append("[\(index):a]aresample=48000,asetpts=PTS-STARTPTS,adelay=delays=\(input.offset):all=1[a\(index)]")
                labels += "[a\(index)]"
            }
            graph.append("\(labels)amix=inputs=\(audios.count):duration=longest:normalize=0[audio]")
        }
        arguments += ["-filter_complex", graph.joined(separator: ";")]
        if !videos.isEmpty { arguments += ["-map", "[video]", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M"] }
        if !audios.isEmpty { arguments += ["-map", "[audio]", "-c:a", "libopus", "-b:a", "96k"] }
        arguments += ["-t", seconds, "-f", "webm", output]
        return arguments
    }

    static func seconds(_ milliseconds: Int64) -> String {
        String(format: "%.3f", Double(milliseconds) / 1000)
    }
}

/// Why a location cannot be composed, in a sentence.
struct ComposeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
