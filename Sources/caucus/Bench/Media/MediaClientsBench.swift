import ArgumentParser

/// `caucus bench media-clients`: many SDK clients with real codecs in one session, as LiveKit's
/// load tester runs many. Each is a `CaucusSession` with its own media connection (ICE,
/// DTLS-SRTP, the SDK's packetiser, jitter buffer and frame assembly); publishers send a real
/// Opus tone and real VP8 of the moving test pattern, encoded once before the run and looped
/// (`LoopedMedia`); every client decodes everything it receives with libopus and libvpx.
/// Measures frames sent and received, the server's RTP packets in and out (its `/metrics`),
/// and the server's CPU. Needs a build with codecs (the `Codecs` trait, `CodecsBuild`).
struct MediaClientsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-clients",
        abstract: "Many SDK clients sending and decoding real Opus and VP8 in one session (a build with codecs: --traits Codecs).")

    @Option(help: "SDK clients in the session (the first is its host).") var clients = 10
    @Option(help: "How many of them publish (default: all).") var publishers: Int?
    @Flag(inversion: .prefixedNo, help: "Publishers send the tone (Opus).") var audio = true
    @Flag(inversion: .prefixedNo, help: "Publishers send the test pattern (VP8).") var video = true
    @Option(help: "The pattern's size, WIDTHxHEIGHT, even, 16x16…1920x1080.", transform: PictureSize.parse)
    var videoSize = ClientMediaOptions.defaultSize
    @Option(help: "The pattern's frames per second.") var frameRate = ClientMediaOptions.defaultRate
    @Flag(inversion: .prefixedNo, help: "Receivers decode every frame (libopus, libvpx).") var decode = true
    @Option(help: "Seconds measured.") var seconds = 10
    @Flag(help: "Print JSON instead of a table.") var json = false

    /// The receive slots an SDK client offers (docs/sdk-media.md): at most this many others are heard and seen at once.
    static let audioSlots = 3
    static let videoSlots = 4

    var publisherCount: Int { publishers ?? clients }

    func validate() throws { try validate(codecsIncluded: CodecsBuild.isIncluded) }

    /// `codecsIncluded`: whether this build has the codecs every client needs (`CodecsBuild`).
    func validate(codecsIncluded: Bool) throws {
        guard codecsIncluded else { throw CodecsBuild.Missing(what: "caucus bench media-clients") }
        guard (2...200).contains(clients) else { throw ValidationError("--clients must be 2…200 (got \(clients))") }
        guard (1...clients).contains(publisherCount) else { throw ValidationError("--publishers must be 1…\(clients) (got \(publisherCount))") }
        guard audio || video else { throw ValidationError("publish audio, video or both (--no-audio and --no-video leave nothing)") }
        guard (1...60).contains(frameRate) else { throw ValidationError("--frame-rate must be 1…60 (got \(frameRate))") }
        guard seconds >= 1 else { throw ValidationError("--seconds must be at least 1") }
    }

    /// How many others' streams of a kind client `index` receives: the publishers besides
    /// itself, as far as its slots go.
    static func expectedStreams(of index: Int, publishers: Int, slots: Int) -> Int {
        min(slots, index < publishers ? publishers - 1 : publishers)
    }

    func run() async throws {
        #if Codecs
        try await measure()
        #else
        // Refused when the options were validated; never a bench without codecs.
        throw CodecsBuild.Missing(what: "caucus bench media-clients")
        #endif
    }
}
