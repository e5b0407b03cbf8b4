import ArgumentParser
import Testing

@testable import caucus

/// `caucus client`'s media options and `caucus bench media-clients`' options: what they
/// accept, and the clear error each bad combination gets.
@Suite struct ClientMediaOptionsTests {
    private let joining = ["--session", "S", "--name", "Ann"]

    private func client(_ arguments: [String]) throws -> ClientCommand { try ClientCommand.parse(joining + arguments) }

    /// The message ArgumentParser prints for `arguments`, or nil when they parse.
    private func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try client(arguments)
            return nil
        } catch {
            return ClientCommand.message(for: error)
        }
    }

    @Test func withoutMediaOptionsTheClientJoinsNoMedia() throws {
        let command = try client([])
        #expect(!command.media.usesMedia)
    }

    @Test func theToneAndPatternOptionsAndTheirDefaults() throws {
        let defaults = try client(["--publish-tone", "--publish-pattern"]).media
        #expect(defaults.usesMedia && defaults.tone == 440 && defaults.size == PictureSize(width: 320, height: 240) && defaults.rate == 15)
        #expect(defaults.report == .text)
        let chosen = try client(["--publish-tone", "--tone-hertz", "660", "--publish-pattern", "--pattern-size", "640X360", "--pattern-rate", "30", "--media-report", "json"]).media
        #expect(chosen.tone == 660 && chosen.size == PictureSize(width: 640, height: 360) && chosen.rate == 30 && chosen.report == .json)
        let receiving = try client(["--receive-media", "--media-report", "none"]).media
        #expect(receiving.usesMedia && !receiving.publishTone && !receiving.publishPattern && receiving.report == .none)
    }

    @Test(arguments: [
        (["--tone-hertz", "660"], "--tone-hertz needs --publish-tone"),
        (["--publish-tone", "--tone-hertz", "19"], "--tone-hertz must be 20…20000"),
        (["--publish-tone", "--tone-hertz", "20001"], "--tone-hertz must be 20…20000"),
        (["--pattern-size", "320x240"], "--pattern-size and --pattern-rate need --publish-pattern"),
        (["--pattern-rate", "10"], "--pattern-size and --pattern-rate need --publish-pattern"),
        (["--publish-pattern", "--pattern-rate", "0"], "--pattern-rate must be 1…60"),
        (["--publish-pattern", "--pattern-rate", "61"], "--pattern-rate must be 1…60"),
        (["--publish-pattern", "--pattern-size", "321x240"], "a size is WIDTHxHEIGHT, both even, from 16x16 to 1920x1080"),
        (["--publish-pattern", "--pattern-size", "320"], "a size is WIDTHxHEIGHT, both even"),
        (["--publish-pattern", "--pattern-size", "8x8"], "a size is WIDTHxHEIGHT, both even"),
        (["--publish-pattern", "--pattern-size", "3840x2160"], "a size is WIDTHxHEIGHT, both even"),
        (["--media-report", "json"], "--media-report needs media"),
        (["--receive-media", "--media-report", "xml"], "--media-report"),
    ])
    func aBadCombinationIsRefusedWithWhatToChange(_ arguments: [String], _ message: String) {
        let refused = refusal(arguments)
        #expect(refused?.contains(message) == true, "\(arguments): \(refused ?? "accepted")")
    }

    /// A `caucus` built without codecs (without the package's `Codecs` trait) refuses every
    /// media option as its options are validated, before it joins anything: an error, not a
    /// crash, naming the options and saying how to build with codecs. This suite is built with
    /// codecs, so `validate(codecsIncluded: false)` stands for that build's `validate()`
    /// (CodecFreeBuildTests typechecks that build's sources).
    @Test(arguments: [
        (["--publish-tone"], "--publish-tone: "),
        (["--publish-pattern", "--pattern-rate", "30"], "--publish-pattern: "),
        (["--receive-media", "--media-report", "json"], "--receive-media: "),
        (["--publish-tone", "--publish-pattern", "--receive-media"], "--publish-tone, --publish-pattern, --receive-media: "),
    ])
    func withoutCodecsTheMediaOptionsAreRefusedSayingHowToBuildWithThem(_ arguments: [String], _ named: String) throws {
        let media = try client(arguments).media
        var refused: String?
        do {
            try media.validate(codecsIncluded: false)
        } catch {
            refused = ClientCommand.message(for: error)
            #expect(ClientCommand.exitCode(for: error) == .failure)
        }
        let message = try #require(refused, "\(arguments) accepted without codecs")
        #expect(message.hasPrefix(named + "this caucus was built without codecs (libopus and libvpx"), "\(message)")
        #expect(message.contains("apt-get install pkg-config libopus-dev libvpx-dev"), "\(message)")
        #expect(message.contains("swift build --traits Codecs"), "\(message)")
        // Without media options the client needs no codecs.
        try client([]).media.validate(codecsIncluded: false)
    }

    @Test func withoutCodecsTheLoadTestIsRefusedSayingHowToBuildWithThem() throws {
        let bench = try MediaClientsBench.parse(["--clients", "4", "--no-decode"])
        var refused: String?
        do {
            try bench.validate(codecsIncluded: false)
        } catch {
            refused = MediaClientsBench.message(for: error)
        }
        let message = try #require(refused, "accepted without codecs")
        #expect(message.hasPrefix("caucus bench media-clients: this caucus was built without codecs"), "\(message)")
        #expect(message.contains("swift build --traits Codecs"), "\(message)")
    }

    @Test func pictureSizesParseOnlyWhenEvenAndInRange() {
        #expect(PictureSize(argument: "16x16") == PictureSize(width: 16, height: 16))
        #expect(PictureSize(argument: "1920x1080") == PictureSize(width: 1920, height: 1080))
        for bad in ["", "x", "320x", "x240", "320x240x2", "-320x240", "320 x 240", "1922x1080", "1920x1082", "14x16", "320x241"] {
            #expect(PictureSize(argument: bad) == nil, "\(bad)")
        }
        #expect(PictureSize(width: 320, height: 240).description == "320x240")
    }

    @Test func theLoadTestsOptions() throws {
        let bench = try MediaClientsBench.parse(["--clients", "20", "--publishers", "5", "--no-audio", "--video-size", "160x120"])
        #expect(bench.clients == 20 && bench.publisherCount == 5 && !bench.audio && bench.video && bench.videoSize == PictureSize(width: 160, height: 120))
        #expect(try MediaClientsBench.parse([]).publisherCount == 10)
        for (arguments, message) in [
            (["--clients", "1"], "--clients must be 2…200"),
            (["--clients", "4", "--publishers", "5"], "--publishers must be 1…4"),
            (["--publishers", "0"], "--publishers must be 1…10"),
            (["--no-audio", "--no-video"], "publish audio, video or both"),
            (["--frame-rate", "0"], "--frame-rate must be 1…60"),
            (["--seconds", "0"], "--seconds must be at least 1"),
            (["--video-size", "100x75"], "a size is WIDTHxHEIGHT, both even"),
        ] {
            var refused: String?
            do { _ = try MediaClientsBench.parse(arguments) } catch { refused = MediaClientsBench.message(for: error) }
            #expect(refused?.contains(message) == true, "\(arguments): \(refused ?? "accepted")")
        }
    }

    @Test func eachClientExpectsTheOtherPublishersAsFarAsItsSlotsGo() {
        // Ten publishers: each hears the other nine, but has three audio and four video slots.
        #expect(MediaClientsBench.expectedStreams(of: 0, publishers: 10, slots: 4) == 4)
        // Two of five publish: a publisher receives the other one, a listener both.
        #expect(MediaClientsBench.expectedStreams(of: 1, publishers: 2, slots: 4) == 1)
        #expect(MediaClientsBench.expectedStreams(of: 4, publishers: 2, slots: 4) == 2)
        // The only publisher has nobody to receive.
        #expect(MediaClientsBench.expectedStreams(of: 0, publishers: 1, slots: 3) == 0)
    }
}
