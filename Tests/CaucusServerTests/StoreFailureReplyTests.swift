import CaucusProcessTestSupport
import Foundation
import Testing

/// When the store fails, every command still waiting for it is answered with its error
/// (1010 `internalError`) before the connection closes with 4006, so a client knows which of
/// its commands took effect (issue 26, item 4). The failure is real: another process holds
/// the SQLite file's write lock until the server's write gives up.
@Suite(.serialized) struct StoreFailureReplyTests {
    @Test func everyCommandWaitingOnAFailedStoreIsAnsweredBeforeTheClose() async throws {
        let server = try await TestServer.start()
        let ann = try await server.joined("Ann", role: .host)
        let ben = try await server.joined("Ben")
        try await ann.request("chat", ["text": "stored"])
        let lock = try DatabaseLock(path: server.dataDirectory + "/caucus.sqlite")
        defer { lock.release() }
        try await lock.held()
        let annChat = try await ann.send("chat", ["text": "never stored"])
        let benChat = try await ben.send("chat", ["text": "never stored either"])
        for (client, id) in [(ann, annChat), (ben, benChat)] {
            var answer: JSON?
            while let frame = try await client.nextFrame() {
                if frame["re"] as? Int == id { answer = frame }
            }
            let error = try #require(answer?["error"] as? JSON, "no answer to \(id) before the close")
            #expect(error["code"] as? Int == 1010, "\(error)")
            #expect(await client.closeCode == .some(4006))
        }
        await server.stop()
    }

    /// Commands pipelined behind the one the store fails on, read by the server but not yet
    /// handed to the session, are answered 1010 too, before the close (issue 41, item 6).
    @Test func everyCommandQueuedBehindTheFailedOneIsAnsweredBeforeTheClose() async throws {
        let server = try await TestServer.start()
        let socket = try RawWebSocket(port: server.port, readTimeout: 60)
        let token = try server.token(session: "Class", role: .host)
        try socket.sendText(#"{"id":1,"op":"join","session":"Class","userName":"Ann","token":"\#(token)"}"#)
        try await Self.answer(to: 1, on: socket)
        try socket.sendText(#"{"id":2,"op":"chat","text":"stored"}"#)
        try await Self.answer(to: 2, on: socket)
        let lock = try DatabaseLock(path: server.dataDirectory + "/caucus.sqlite")
        defer { lock.release() }
        try await lock.held()
        let ids = Array(10..<20)
        try socket.sendTogether(ids.map { RawWebSocket.frame(opcode: 1, Array(#"{"id":\#($0),"op":"chat","text":"never stored"}"#.utf8)) })
        var answers: [Int: Int] = [:]
        var closeCode: Int?
        while let frame = try await socket.nextFrame() {
            if frame.opcode == 8 {
                closeCode = frame.closeCode
                break
            }
            guard let json = try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any], let id = json["re"] as? Int else { continue }
            #expect(answers[id] == nil, "\(id) answered twice")
            answers[id] = (json["error"] as? [String: Any])?["code"] as? Int ?? 0
        }
        #expect(closeCode == 4006)
        for id in ids { #expect(answers[id] == 1010, "command \(id) answered \(answers[id].map(String.init) ?? "nothing") before the close") }
        await server.stop()
    }

    /// Reads frames until the answer to `id`.
    private static func answer(to id: Int, on socket: RawWebSocket) async throws {
        while let frame = try await socket.nextFrame() {
            if frame.text.contains(#""re":\#(id),"#) || frame.text.contains(#""re":\#(id)}"#) { return }
        }
        throw TestFailure("closed before the answer to \(id)")
    }
}

/// A second process (Python's sqlite3) holding a database's write lock: `BEGIN IMMEDIATE`,
/// kept until its standard input closes — when `release` closes it, or when the test process
/// ends however it ends (a `terminate` alone left these processes running after test runs).
final class DatabaseLock: Sendable {
    private let process: Process
    private let output: FileHandle
    private let input: FileHandle

    init(path: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.read()
            """
        process.arguments = ["python3", "-c", script, path]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        input = stdin.fileHandleForWriting
        process.standardError = FileHandle.nullDevice
        output = stdout.fileHandleForReading
        try process.run()
    }

    /// Returns once the lock is taken.
    func held() async throws {
        let output = output
        let line = try await offThePool { String(decoding: output.availableData, as: UTF8.self) }
        guard line.hasPrefix("locked") else { throw TestFailure("the lock was not taken: \(line)") }
    }

    func release() {
        try? input.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
