import CaucusCore
import Foundation
import Testing
@testable import CaucusServer

/// `caucus client` as a child process: typed into through its standard input, read from its
/// standard output, against an in-process server with protocol-level participants.
@Suite(.serialized) struct ClientCommandTests {
    @Test func theHostRunsAWholeRoundFromTheTerminal() async throws {
        let server = try await TestServer.start()
        let client = try TerminalClient(
            url: server.webSocketURL, session: "Lab", name: "Teacher", token: try server.token(session: "Lab", role: .host))
        _ = try await within("the client joins") { try await client.line { $0.contains("joined Lab as Teacher") } }

        let ann = try await server.joined("Ann", session: "Lab")
        let ben = try await server.joined("Ben", session: "Lab")
        _ = try await within("Ann joined") { try await client.line { $0.hasSuffix("] Ann joined") } }
        _ = try await within("Ben joined") { try await client.line { $0.hasSuffix("] Ben joined") } }
        #expect(try await client.run("users") == "ok")
        #expect(await client.printed { $0.contains("Ben, participant, in main") })

        // Plan, commit, start.
        #expect(try await client.run("plan add Red Blue") == "ok")
        #expect(try await client.run("commit") == "ok")
        let committed = try await within("committed status") {
            try await ann.event("statusChanged") { Self.status(of: $0) == "committed" }
        }
        let rooms = ((committed["event"] as? JSON)?["breakout"] as? JSON)?["rooms"] as? [JSON] ?? []
        let (red, blue) = (rooms.first?["id"] as? Int ?? 0, rooms.last?["id"] as? Int ?? 0)
        #expect(try await client.run("start") == "ok")
        _ = try await within("started") { try await client.line { $0.contains("] subsessions started: Red, Blue") } }

        // The participants choose their rooms; the host sees them go.
        try await ann.request("joinRoom", ["room": red])
        try await ben.request("joinRoom", ["room": blue])
        _ = try await within("Ben in Blue") { try await client.line { $0.contains("Ben moved to Blue") } }

        // Broadcast reaches every room.
        #expect(try await client.run("broadcast Two minutes") == "ok")
        for participant in [ann, ben] {
            let broadcast = try await within("the broadcast") { try await participant.event("broadcast") }
            #expect((broadcast["event"] as? JSON)?["text"] as? String == "Two minutes")
        }

        // The host's voice to every room, and a listen-in that Blue is told of.
        #expect(try await client.run("voice on") == "ok")
        _ = try await within("the voice broadcast") { try await client.line { $0.contains("Teacher speaks to every room") } }
        let voice = try await within("Ann told of the broadcast") { try await ann.event("voiceBroadcast") }
        #expect((voice["event"] as? JSON)?["active"] as? Bool == true)
        #expect(try await client.run("voice off") == "ok")
        #expect(try await client.run("voice").hasPrefix("error 0 usage:"))
        #expect(try await client.run("listen Blue") == "ok")
        _ = try await within("listening") { try await client.line { $0.contains("Teacher listens in to Blue") } }
        let listening = try await within("Ben told of the listener") { try await ben.event("listening") }
        #expect((listening["event"] as? JSON)?["room"] as? Int == blue)
        #expect(try await client.run("unlisten") == "ok")

        // Recording every room: Blue's Ben is told, and so is the host's terminal.
        #expect(try await client.run("record all") == "ok")
        let recording = try await within("Ben told of the recording") { try await ben.event("recordingChanged") }
        #expect((recording["event"] as? JSON)?["everyRoom"] as? Bool == true)
        _ = try await within("the host's line") { try await client.line { $0.contains("recording: Red, Blue") } }
        #expect(try await client.run("unrecord Blue") == "ok")
        _ = try await within("Blue stopped") { try await client.line { $0.hasSuffix("recording: Red") } }
        #expect(try await client.run("record Blue") == "ok")
        #expect(try await client.run("record Blue").hasPrefix("error 7006 alreadyRecording:"))
        // The server stops Blue on its own (its disk is full): the terminal says where and why.
        let session = try #require(await server.server.registry.session(app: server.app.key, named: "Lab"))
        await session.recordingFailed([.room(RoomID(blue))], reason: .diskFull)
        _ = try await within("Blue stopped by the server") {
            try await client.line { $0.hasSuffix("recording stopped in Blue: The server's disk is full.") }
        }
        #expect(try await client.run("unrecord all") == "ok")
        #expect(try await client.run("record").hasPrefix("error 0 usage:"))

        // The host mutes Ann's microphone; Ann is told who did it, and the host sees it.
        try await ann.request("publish", ["media": ["audio"]])
        #expect(try await client.run("mute-user Ann") == "ok")
        let muted = try await within("Ann told she is muted") { try await ann.event("mediaChanged") { ($0["event"] as? JSON)?["by"] != nil } }
        #expect(((muted["event"] as? JSON)?["publishing"] as? [any Sendable])?.isEmpty == true)
        _ = try await within("the host sees it") { try await client.line { $0.contains("Teacher muted Ann's audio") } }
        #expect(try await client.run("mute-user Ann").hasPrefix("error 2020 notPublishing:"))

        // Ben asks for help; the host goes.
        try await ben.request("requestHelp")
        let help = try await within("the help request") { try await client.line { $0.contains("] help request h") } }
        #expect(help.contains("from Ben in Blue"))
        let id = help.split(separator: " ").first { $0.hasPrefix("h") && Int($0.dropFirst()) != nil }.map(String.init) ?? "?"
        #expect(try await client.run("help-answer \(id) join") == "ok")
        let answer = try await within("Ben hears the answer") { try await ben.event("helpAnswered") }
        #expect((answer["event"] as? JSON)?["result"] as? String == "managerJoining")
        _ = try await within("the host in Blue") { try await client.line { $0.contains("you are now in Blue") } }

        // A refusal comes back as an error line, and changes nothing.
        #expect(try await client.run("join Green").hasPrefix("error 0 unknownRoom:"))
        #expect(try await client.run("withdraw").hasPrefix("error "))

        // Stop at once: everyone back.
        #expect(try await client.run("stop 0") == "ok")
        _ = try await within("stopped") { try await client.line { $0.contains("] subsessions stopped") } }
        _ = try await within("Ben back") { try await ben.event("statusChanged") { Self.status(of: $0) == "stopped" } }
        #expect(try await client.run("quit") == "ok")
        #expect(try await within("the client exits") { try await client.exitStatus() } == 0)
        await server.stop()
    }

    @Test func theEndOfTheInputLeavesAndExitsCleanly() async throws {
        let server = try await TestServer.start()
        let watcher = try await server.joined("Watcher", session: "Eof", role: .host)
        let client = try TerminalClient(url: server.webSocketURL, session: "Eof", name: "Ann", token: try server.token(session: "Eof"))
        _ = try await within("the client joins") { try await client.line { $0.contains("joined Eof as Ann") } }
        #expect(try await client.run("help") == "ok")
        #expect(await client.printed { $0.contains("help-answer ID join|ignore") })
        #expect(try await client.run("start").hasPrefix("error 0 notManaging:"))
        await client.closeInput()
        #expect(try await within("the client exits") { try await client.exitStatus() } == 0)
        _ = try await within("the watcher hears Ann leave") { try await watcher.event("userLeft") }
        await server.stop()
    }

    private static func status(of frame: JSON) -> String? {
        (((frame["event"] as? JSON)?["breakout"] as? JSON)?["phase"] as? JSON)?["status"] as? String
    }
}

/// `caucus client` running as a child process.
private actor TerminalClient {
    private let process = Process()
    private let input = Pipe()
    private var lines: AsyncStream<String>.Iterator
    /// Every line printed so far.
    private var seen: [String] = []
    /// The `ok` and `error …` lines, one per command, in order.
    private var replies: [String] = []

    init(url: String, session: String, name: String, token: String) throws {
        guard FileManager.default.isExecutableFile(atPath: ServerProcess.executable.path) else {
            throw TestFailure("\(ServerProcess.executable.path) is missing: run `swift build --traits Codecs` before `swift test --traits Codecs`, as scripts/test does")
        }
        process.executableURL = ServerProcess.executable
        process.arguments = ["client", "--session", session, "--name", name, "--url", url, "--token", token]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        let handle = output.fileHandleForReading
        Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
            continuation.finish()
        }.start()
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// The next line printed; nil once the output ends.
    private func next() async -> String? {
        var iterator = lines
        let line = await iterator.next(isolation: self)
        lines = iterator
        if let line {
            seen.append(line)
            if line == "ok" || line.hasPrefix("error ") { replies.append(line) }
        }
        return line
    }

    /// The first line, printed already or to come, that `matches`.
    func line(_ matches: @Sendable (String) -> Bool) async throws -> String {
        if let line = seen.first(where: matches) { return line }
        while let line = await next() { if matches(line) { return line } }
        throw TestFailure("the client's output ended; it printed:\n\(seen.joined(separator: "\n"))")
    }

    func printed(_ matches: @Sendable (String) -> Bool) -> Bool { seen.contains(where: matches) }

    /// Types `command` and returns its reply: `ok` or `error <code> <name>: <message>`.
    func run(_ command: String) async throws -> String {
        let before = replies.count
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        while replies.count == before {
            guard await next() != nil else { throw TestFailure("the client's output ended before answering \(command)") }
        }
        return replies[before]
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for the client to exit; returns its status.
    func exitStatus() async throws -> Int32 {
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }
}
