import ArgumentParser
import Caucus
import CaucusAuth
import CaucusCore
import Foundation

/// `caucus client`: joins a session as one user, prints its events as they come, and carries
/// out commands typed a line at a time. Three terminals run a whole breakout by hand.
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Join a session from the terminal: see its events, type commands (`help` lists them).",
        discussion: """
            Prints one line per event, `[seq] what happened`, and answers each command with `ok` or \
            `error <code> <name>: <message>`. Without --token it mints one with the development app \
            in <data>/\(AppCredentials.developmentFileName). At the end of the input it leaves.

            With --publish-tone and --publish-pattern it publishes a generated tone (Opus) and a \
            moving test pattern (VP8); with any media option it receives others' media, decodes \
            it, and once a second reports, per user, frames per second, picture size and audio \
            level (--media-report text, json or none). Media follows every move by itself. \
            Media needs a caucus built with codecs (`swift build --traits Codecs`, after \
            `apt-get install pkg-config libopus-dev libvpx-dev`); a build without them refuses \
            the media options.
            """)

    @Option(help: "The session to join (created if none is active with that name).") var session: String
    @Option(help: "Your name in the session.") var name: String
    @Option(help: "The role the minted token grants (ignored with --token).") var role: TokenCommand.Role = .participant
    @Option(help: "The server's WebSocket address.") var url = "ws://127.0.0.1:8080/ws"
    @Option(help: "The session's password, if it is private.") var password: String?
    @Option(help: "The server's data directory, where the development app is kept.") var data = "./caucus-data"
    @Option(help: "A join token; without it, one is minted with the development app.") var token: String?
    @Option(help: "A PEM file of certificate authorities to trust for a wss:// server beside the system's (a private CA).")
    var ca: String?
    @OptionGroup(title: "Media") var media: ClientMediaOptions

    func run() async throws {
        guard let server = URL(string: url), server.scheme == "ws" || server.scheme == "wss" else {
            throw ValidationError("--url must be a WebSocket address, like ws://127.0.0.1:8080/ws")
        }
        let jwt = try token ?? mintToken()
        var configuration = CaucusSession.Configuration()
        if let ca { configuration.trustRoots = try Self.trustRoots(in: ca) }
        let caucus = CaucusSession(configuration: configuration)
        let console = Console()
        // Subscribe before joining, to hear the join itself.
        let printer = Task { [events = caucus.events] in
            var joined = false
            for await event in events {
                if case .sessionJoined = event { joined = true }
                // Connecting for the first time is what the join line says.
                if case .connectionStateChanged = event, !joined { continue }
                if let line = EventDescription(snapshot: caucus.snapshot).line(for: event) {
                    console.print("[\(caucus.snapshot?.seq ?? 0)] \(line)")
                }
                if case .sessionLeft = event { console.sessionIsOver() }
            }
        }
        defer { printer.cancel() }
        do {
            try await caucus.join(url: server, sessionName: session, userName: name, token: jwt, password: password) { _ in nil }
        } catch {
            throw TokenCommand.Failure(description: "Could not join \(session): \(error)")
        }
        let stopMedia = try await startMedia(caucus, console: console)
        defer { stopMedia() }
        let shell = ClientShell(session: caucus, console: console)
        console.startReading()
        // Once left, wait for the printer to say so (`left the session`), then exit.
        var leaving = false
        for await input in console.inputs {
            switch input {
            case .line(let line):
                guard !leaving else { continue }
                leaving = await !shell.execute(line)
            case .endOfInput:
                guard !leaving else { continue }
                do { try await caucus.leave() } catch { return }
                leaving = true
            case .sessionOver:
                return
            }
        }
    }

    /// Joins media if any media option asks for it: the receiver first (to miss no frame),
    /// then audio (muted unless the tone is published) and video, then the publisher. Returns
    /// what stops them.
    private func startMedia(_ caucus: CaucusSession, console: Console) async throws -> () -> Void {
        guard media.usesMedia else { return {} }
        #if Codecs
        let receiver = ClientReceiver(session: caucus, console: console, format: media.report)
        do {
            try await caucus.audioHelper.start(muted: !media.publishTone)
            if media.publishPattern { try await caucus.videoHelper.start() }
        } catch {
            receiver.stop()
            throw TokenCommand.Failure(description: "Could not start media: \(error)")
        }
        let publisher = media.publishTone || media.publishPattern ? ClientPublisher.start(caucus, options: media) : nil
        return {
            publisher?.cancel()
            receiver.stop()
        }
        #else
        // Refused when the options were validated, before joining; never media without codecs.
        throw CodecsBuild.Missing(what: media.mediaOptionsGiven)
        #endif
    }

    /// The certificates of `--ca`'s PEM file.
    static func trustRoots(in path: String) throws -> [CaucusSession.Configuration.TrustRoot] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--ca \(path): the file cannot be read.")
        }
        do {
            return try CaucusSession.Configuration.TrustRoot.certificates(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw ValidationError("--ca \(path): \(error)")
        }
    }

    private func mintToken() throws -> String {
        let app = try DevelopmentApp.load(data: data)
        let now = Instant(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        do {
            return try TokenMinter.mint(app: app, sessionName: session, role: role.claim, issuedAt: now)
        } catch let error as CaucusCore.CaucusError {
            throw TokenCommand.Failure(description: error.message)
        }
    }
}
