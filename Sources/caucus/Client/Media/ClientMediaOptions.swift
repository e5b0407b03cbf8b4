import ArgumentParser

/// `caucus client`'s media options: what it publishes (a generated tone, a moving test
/// pattern), whether it receives, and how it reports what it receives.
struct ClientMediaOptions: ParsableArguments {
    /// How the once-a-second report of received media is printed.
    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        /// `media <name> (<id>): video … fps WxH, audio … dBFS`, a line per user.
        case text
        /// One JSON object per line (`{"media": […]}`), for programs.
        case json
        /// No report (media still flows).
        case none
    }

    @Flag(help: "Publish a generated sine tone as Opus (libopus).") var publishTone = false
    @Option(help: "The tone's frequency in Hz (20…20000; with --publish-tone).") var toneHertz: Double?
    @Flag(help: "Publish a moving test pattern as VP8 (libvpx).") var publishPattern = false
    @Option(help: "The pattern's size, WIDTHxHEIGHT, even, 16x16…1920x1080 (with --publish-pattern; default 320x240).", transform: PictureSize.parse)
    var patternSize: PictureSize?
    @Option(help: "The pattern's frames per second, 1…60 (with --publish-pattern; default 15).") var patternRate: Int?
    @Flag(help: "Receive others' media without publishing (implied by --publish-tone and --publish-pattern).")
    var receiveMedia = false
    @Option(help: "Once a second, per user received: frames per second, resolution and audio level, as text (the default) or json, or none.")
    var mediaReport: ReportFormat?

    static let defaultTone = 440.0
    static let defaultSize = PictureSize(width: 320, height: 240)
    static let defaultRate = 15

    /// Whether the client joins media at all.
    var usesMedia: Bool { publishTone || publishPattern || receiveMedia }
    var tone: Double { toneHertz ?? Self.defaultTone }
    var size: PictureSize { patternSize ?? Self.defaultSize }
    var rate: Int { patternRate ?? Self.defaultRate }
    var report: ReportFormat { mediaReport ?? .text }

    /// The media options given, as written (`--publish-tone, --receive-media`).
    var mediaOptionsGiven: String {
        [(publishTone, "--publish-tone"), (publishPattern, "--publish-pattern"), (receiveMedia, "--receive-media")]
            .filter(\.0).map(\.1).joined(separator: ", ")
    }

    func validate() throws { try validate(codecsIncluded: CodecsBuild.isIncluded) }

    /// `codecsIncluded`: whether this build has the codecs that media needs (`CodecsBuild`).
    func validate(codecsIncluded: Bool) throws {
        if usesMedia, !codecsIncluded { throw CodecsBuild.Missing(what: mediaOptionsGiven) }
        if toneHertz != nil, !publishTone { throw ValidationError("--tone-hertz needs --publish-tone") }
        if let toneHertz, !(20...20_000).contains(toneHertz) {
            throw ValidationError("--tone-hertz must be 20…20000 (got \(toneHertz))")
        }
        if patternSize != nil || patternRate != nil, !publishPattern {
            throw ValidationError("--pattern-size and --pattern-rate need --publish-pattern")
        }
        if let patternRate, !(1...60).contains(patternRate) { throw ValidationError("--pattern-rate must be 1…60 (got \(patternRate))") }
        if mediaReport != nil, !usesMedia {
            throw ValidationError("--media-report needs media: --publish-tone, --publish-pattern or --receive-media")
        }
    }
}

/// A picture size written `WIDTHxHEIGHT`: both even (I420's chroma is half of each), at least
/// 16 and at most 1920x1080.
struct PictureSize: Hashable, Sendable, ExpressibleByArgument, CustomStringConvertible {
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (16...1920).contains(width), (16...1080).contains(height), width % 2 == 0, height % 2 == 0
        else { return nil }
        self.init(width: width, height: height)
    }

    var description: String { "\(width)x\(height)" }

    /// A size from its argument, or the error that says what a size must be.
    static func parse(_ argument: String) throws -> PictureSize {
        guard let size = PictureSize(argument: argument) else {
            throw ValidationError("a size is WIDTHxHEIGHT, both even, from 16x16 to 1920x1080, like 320x240")
        }
        return size
    }
}
