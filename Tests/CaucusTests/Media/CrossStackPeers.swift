import Caucus
import Foundation

/// `Tests/MediaInterop/crossstack_peers.py` as a running process: an aiortc user and a headless
/// Chromium user of the Swift test's session, spoken to in JSON lines (the script's docstring
/// has the commands). Each command waits for its one reply, so calls go one at a time.
final class CrossStackPeers: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("MediaInterop/crossstack_peers.py")

    enum Stack: String, Encodable { case aiortc, chromium }

    /// What a user publishes: the palette the receivers recognise everyone by.
    struct Publication: Encodable, Sendable {
        let tone: Double
        let colour: [Int]
        let size: [Int]
    }

    /// What one receiver recognised since the last mark, by publisher's name.
    struct Reception: Decodable, Sendable {
        /// The tone's frequency per reading (Hz).
        let audio: [String: [Double]]
        /// Each frame's [width, height].
        let video: [String: [[Int]]]
        /// When each recognition was (seconds from the mark), by publisher and kind.
        let times: [String: [String: [Double]]]
    }

    private let process: LineProcess

    init() throws {
        // Its standard error (tracebacks, the browser's complaints) goes to the test's.
        process = try LineProcess(["python3", Self.script.path], standardError: FileHandle.standardError)
    }

    /// Joins each user (`users`: name, stack, token) through `webSocket`, starts its media and
    /// publishes its entry of `palette`; returns their user IDs by name.
    func start(
        webSocket: URL, session: String, palette: [String: Publication], users: [(name: String, stack: Stack, token: String)]
    ) async throws -> [String: UserID] {
        struct User: Encodable { let stack: Stack, token: String, size: [Int] }
        struct Start: Encodable { let op = "start", ws: String, session: String, palette: [String: Publication], users: [String: User] }
        struct Started: Decodable { let users: [String: Int] }
        let start = Start(
            ws: webSocket.absoluteString, session: session, palette: palette,
            users: Dictionary(uniqueKeysWithValues: users.map { ($0.name, User(stack: $0.stack, token: $0.token, size: palette[$0.name]!.size)) }))
        let started: Started = try await call(start, seconds: 60, "the aiortc and Chromium users' start")
        return started.users.mapValues { UserID(rawValue: $0) }
    }

    /// From now on, `report()` counts (the moment is the script's own, taken on receipt).
    func mark() async throws {
        struct Marked: Decodable { let marked: Bool }
        let _: Marked = try await call(["op": "mark"], seconds: 30, "a mark")
    }

    /// What each of the script's users recognised of everyone since the last mark, by receiver.
    func report() async throws -> [String: Reception] {
        struct Report: Decodable { let report: [String: Reception] }
        let report: Report = try await call(["op": "report"], seconds: 30, "a report")
        return report.report
    }

    /// Each of the script's users' receive slots, as a line of JSON: who fills each, the RTP
    /// packets its receiver counted, what it recognised in the last 2 s (for failures).
    func slots() async -> String {
        process.send(line: #"{"op": "slots"}"#)
        return (try? await within(seconds: 30, "the slots") { [process] in await process.nextLine() }) ?? "(no answer)"
    }

    /// Every user takes its seat back through `webSocket` and offers again (after a server
    /// restart); marks once all have.
    func resume(webSocket: URL) async throws {
        struct Resumed: Decodable { let resumed: Bool }
        let _: Resumed = try await call(["op": "resume", "ws": webSocket.absoluteString], seconds: 60, "the users' resume")
    }

    func close() async {
        process.send(line: #"{"op": "close"}"#)
        _ = try? await within(seconds: 30, "the script's close") { [process] in await process.nextLine() }
        process.stop()
    }

    private func call<Command: Encodable, Reply: Decodable>(_ command: Command, seconds: Double, _ what: String) async throws -> Reply {
        process.send(line: String(decoding: try JSONEncoder().encode(command), as: UTF8.self))
        let line = try await within(seconds: seconds, what) { [process] in await process.nextLine() }
        guard let line else { throw TestFailure("\(what): crossstack_peers.py exited (are aiortc, selenium and chromium installed?)") }
        if let reply = try? JSONDecoder().decode(Reply.self, from: Data(line.utf8)) { return reply }
        throw TestFailure("\(what): crossstack_peers.py said \(line)")
    }
}
