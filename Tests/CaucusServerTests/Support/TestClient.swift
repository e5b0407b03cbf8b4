import CaucusCore
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import WSClient

/// A WebSocket client for tests: sends JSON requests, reads frames as JSON objects, keeps
/// the events it passes over so a test can look for them later.
actor TestClient {
    typealias JSON = [String: any Sendable]

    enum Received: Sendable {
        case text(String)
        case closed(code: Int?)
    }

    private var iterator: AsyncStream<Received>.Iterator
    private let outgoing: AsyncStream<WebSocketOutboundWriter.OutboundFrame>.Continuation
    private var nextID = 1
    /// Frames read while looking for something else.
    private(set) var events: [JSON] = []
    private(set) var closeCode: Int??
    private(set) var user: Int?
    private(set) var secret: String?
    private(set) var lastSeq = 0
    /// Every text frame received, as it came.
    private(set) var texts: [String] = []
    /// The snapshot the join reply carried.
    private(set) var joinSnapshot: JSON = [:]

    static func connect(to server: TestServer) async throws -> TestClient {
        try await connect(url: server.webSocketURL)
    }

    static func connect(url: String) async throws -> TestClient {
        let (received, receiver) = AsyncStream.makeStream(of: Received.self)
        let (outgoing, sender) = AsyncStream.makeStream(of: WebSocketOutboundWriter.OutboundFrame.self)
        let (ready, readiness) = AsyncStream.makeStream(of: Void.self)
        var logger = Logger(label: "test-client")
        logger.logLevel = .critical
        Task {
            let close = try? await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 1 << 24), logger: logger
            ) { inbound, outbound, _ in
                readiness.yield()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await frame in outgoing { try await outbound.write(frame) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        if case .text(let text) = message { receiver.yield(.text(text)) }
                    }
                    group.cancelAll()
                }
            }
            readiness.finish()
            receiver.yield(.closed(code: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }))
            receiver.finish()
        }
        var readyIterator = ready.makeAsyncIterator()
        guard await readyIterator.next() != nil else { throw TestFailure("could not connect to \(url)") }
        return TestClient(iterator: received.makeAsyncIterator(), outgoing: sender)
    }

    private init(iterator: AsyncStream<Received>.Iterator, outgoing: AsyncStream<WebSocketOutboundWriter.OutboundFrame>.Continuation) {
        self.iterator = iterator
        self.outgoing = outgoing
    }

    // MARK: - Sending

    /// Sends a request and returns its id.
    @discardableResult
    func send(_ op: String, _ arguments: JSON = [:]) throws -> Int {
        let id = nextID
        nextID += 1
        var object: JSON = arguments
        object["id"] = id
        object["op"] = op
        sendRaw(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        return id
    }

    func sendRaw(_ text: String) { outgoing.yield(.text(text)) }

    func sendBytes(_ bytes: [UInt8], opcode: WebSocketOpcode = .text) {
        outgoing.yield(.custom(WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(bytes: bytes))))
    }

    func close() { outgoing.finish() }

    // MARK: - Receiving

    /// The next frame, as a JSON object; nil once the connection closed.
    func nextFrame() async throws -> JSON? {
        guard closeCode == nil else { return nil }
        var frames = iterator
        let received = await frames.next(isolation: self)
        iterator = frames
        switch received {
        case .text(let text):
            texts.append(text)
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(text)")
            }
            let json = object.mapValues { SendableJSON.wrap($0) }
            if let seq = json["seq"] as? Int, json["re"] == nil { lastSeq = max(lastSeq, seq) }
            return json
        case .closed(let code):
            closeCode = .some(code)
            return nil
        case nil:
            closeCode = .some(nil)
            return nil
        }
    }

    /// Reads until the reply to `id`, keeping events; throws if the connection closes first.
    func reply(to id: Int) async throws -> JSON {
        while let frame = try await nextFrame() {
            if frame["re"] as? Int == id { return frame }
            if frame["re"] == nil { events.append(frame) }
        }
        throw TestFailure("connection closed (\(String(describing: closeCode))) before the reply to \(id)")
    }

    /// Sends a request and returns its result, failing on an error reply.
    @discardableResult
    func request(_ op: String, _ arguments: JSON = [:]) async throws -> JSON {
        let reply = try await reply(to: try send(op, arguments))
        if let error = reply["error"] as? JSON { throw TestFailure("\(op) refused: \(error)") }
        return reply["result"] as? JSON ?? [:]
    }

    /// Sends a request that must be refused; returns the error's code.
    func refused(_ op: String, _ arguments: JSON = [:]) async throws -> Int {
        let reply = try await reply(to: try send(op, arguments))
        guard let error = reply["error"] as? JSON, let code = error["code"] as? Int else {
            throw TestFailure("\(op) was not refused: \(reply)")
        }
        return code
    }

    func join(session: String, userName: String, token: String, password: String? = nil) async throws {
        var arguments: JSON = ["session": session, "userName": userName, "token": token]
        if let password { arguments["password"] = password }
        joined(with: try await request("join", arguments))
    }

    /// Keeps what a join's result gives: the user, its resume secret and the snapshot.
    func joined(with result: JSON) {
        user = result["user"] as? Int
        secret = result["secret"] as? String
        joinSnapshot = result["snapshot"] as? JSON ?? [:]
        lastSeq = joinSnapshot["seq"] as? Int ?? 0
    }

    /// Keeps what a resume's result gives, for a client that resumed a seat another had.
    func resumed(with result: JSON, secret: String, lastSeq: Int) {
        user = result["user"] as? Int
        self.secret = secret
        self.lastSeq = max(self.lastSeq, lastSeq)
    }

    /// The first event of `type` (kept or still to come), removing it from the kept ones.
    func event(_ type: String, where matches: @Sendable (JSON) -> Bool = { _ in true }) async throws -> JSON {
        if let index = events.firstIndex(where: { Self.type(of: $0) == type && matches($0) }) {
            return events.remove(at: index)
        }
        while let frame = try await nextFrame() {
            if frame["re"] == nil && Self.type(of: frame) == type && matches(frame) { return frame }
            if frame["re"] == nil { events.append(frame) }
        }
        throw TestFailure("connection closed before a \(type) event")
    }

    /// Reads until the connection closes; returns its close code.
    func closed() async throws -> Int? {
        while let frame = try await nextFrame() { if frame["re"] == nil { events.append(frame) } }
        return closeCode ?? nil
    }

    func keptEvents() -> [JSON] { events }

    static func type(of frame: JSON) -> String? { (frame["event"] as? JSON)?["type"] as? String }
}

/// JSONSerialization's values, made Sendable for the actor's dictionaries.
enum SendableJSON {
    static func wrap(_ value: Any) -> any Sendable {
        switch value {
        case let object as [String: Any]: return object.mapValues { wrap($0) }
        case let array as [Any]: return array.map { wrap($0) }
        case let number as NSNumber:
            // JSON booleans arrive as a distinct NSNumber subclass.
            if String(describing: type(of: number)).contains("Boolean") { return number.boolValue }
            return number.intValue
        case let string as String: return string
        default: return "\(value)"
        }
    }
}
