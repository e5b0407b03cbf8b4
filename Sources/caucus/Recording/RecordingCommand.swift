import ArgumentParser
import CaucusRecording
import Foundation

/// `caucus recording …`: work with the recordings a server wrote (docs/recording.md).
struct RecordingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording",
        abstract: "Work with recorded sessions.",
        subcommands: [ComposeRecording.self])
}

/// `caucus recording compose DIR --out room.webm`: one watchable file of a location, made by
/// the `ffmpeg` found on PATH (the server never needs it).
struct ComposeRecording: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Make one WebM file of a recorded location: its videos in a grid, its audio mixed, each file at its place in time.",
        discussion: """
            DIR is a location's folder: <data>/recordings/<session>/<location>, holding timeline.jsonl \
            and the WebM files it names (or what GET /v1/sessions/{id}/recordings/… served, saved under \
            the same names). Needs ffmpeg on PATH (Debian: apt-get install ffmpeg). The output starts \
            at the earliest file's start and re-encodes to VP8 and Opus.
            """)

    @Argument(help: "The location's folder (holding timeline.jsonl).") var directory: String
    @Option(name: .customLong("out"), help: "The WebM file to write.") var output: String
    @Flag(help: "Replace the output file if it exists.") var overwrite = false

    func run() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw Failure("\(directory) is not a folder: give a location's folder, <data>/recordings/<session>/<location>.")
        }
        let location: RecordedLocation
        do {
            location = try RecordedLocation.read(folder: directory, strict: true)
        } catch {
            throw Failure(error.line == 0 ? error.description : "\(directory)/\(RecordingLayout.timelineFileName) \(error)")
        }
        let plan: ComposePlan
        do {
            plan = try ComposePlan(location)
        } catch {
            throw Failure(error.description)
        }
        if !overwrite, FileManager.default.fileExists(atPath: output) {
            throw Failure("\(output) exists: give --overwrite to replace it.")
        }
        guard let ffmpeg = Self.executable(named: "ffmpeg") else {
            throw Failure("ffmpeg is not installed (no ffmpeg on PATH): install it (Debian: apt-get install ffmpeg) to compose recordings.")
        }
        for note in plan.skipped { FileHandle.standardError.write(Data("skipped \(note)\n".utf8)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = plan.arguments(output: output, overwrite: overwrite)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Failure("\(ffmpeg) could not be started: \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure("ffmpeg failed (status \(process.terminationStatus)); its messages are above.")
        }
        print(
            "\(output): \(plan.tiles.count) video tile(s) and \(plan.audios.count) audio file(s) of \(location.location ?? directory), "
                + "\(ComposePlan.seconds(plan.duration)) s")
    }

    /// The first executable `name` on PATH.
    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// A failure at run time: reported without the usage text, with a non-zero exit.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
