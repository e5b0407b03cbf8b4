import Foundation
import NIOCore
import NIOConcurrencyHelpers

/// One simulated user: a lean connection that matches replies to requests and hands every
/// event frame to the scenario.
final class BenchUser: Sendable {
    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<ByteBuffer, any Error>] = [:]
        var onEvent: @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void = { _, _ in }
        var user = 0
        var secret = ""
        var lastSeq = 0
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    private let client: NIOLockedValueBox<LeanClient?> = NIOLockedValueBox(nil)

    var userID: Int { state.withLockedValue { $0.user } }
    var secret: String { state.withLockedValue { $0.secret } }
    var lastSeq: Int { state.withLockedValue { $0.lastSeq } }
    /// Whether its connection closed (the server closed it, or it dropped).
    var isClosed: Bool { state.withLockedValue { $0.closed } }

    func onEvent(_ handler: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void) {
        state.withLockedValue { $0.onEvent = handler }
    }

    func connect(to server: ServerUnderTest, group: any EventLoopGroup) async throws {
        state.withLockedValue { $0.closed = false }
        let lean = try await LeanClient.connect(
            host: server.host, port: server.port, group: group,
            // Held strongly: a scenario may use its users for the last time before it waits for
            // their events, and Swift may free them then. Held weakly, every frame arriving after
            // that was dropped uncounted (the roster events that "never arrived" in big join
            // storms). The cycle ends when the connection closes.
            onText: { frame, time in self.received(frame, at: time) },
            onClose: { self.closed() })
        client.withLockedValue { $0 = lean }
    }

    private func received(_ frame: ByteBuffer, at time: ContinuousClock.Instant) {
        if let re = frame.leadingInteger("re") {
            let waiter = state.withLockedValue { $0.waiting.removeValue(forKey: re) }
            waiter?.resume(returning: frame)
            return
        }
        let handler = state.withLockedValue { state in
            if let seq = frame.leadingInteger("seq") { state.lastSeq = max(state.lastSeq, seq) }
            return state.onEvent
        }
        handler(frame, time)
    }

    private func closed() {
        let waiters = state.withLockedValue { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.resume(throwing: BenchError("connection closed")) }
    }

    /// Sends `{"id": n, "op": op, <arguments>}` and returns the reply frame.
    @discardableResult
    func request(_ op: String, _ arguments: String = "") async throws -> ByteBuffer {
        try await timedRequest(op, arguments).reply
    }

    /// The same, with the time the request left this process (its write on the connection's
    /// loop): what a bench times from when its one loop serves many users.
    func timedRequest(_ op: String, _ arguments: String = "") async throws -> (reply: ByteBuffer, sent: NIODeadline) {
        let sent = NIOLockedValueBox<NIODeadline?>(nil)
        let reply = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer, any Error>) in
            let id: Int? = state.withLockedValue { state in
                guard !state.closed else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiting[id] = continuation
                return id
            }
            guard let id else { return continuation.resume(throwing: BenchError("connection closed")) }
            let text = #"{"id":\#(id),"op":"\#(op)""# + (arguments.isEmpty ? "" : "," + arguments) + "}"
            client.withLockedValue { $0?.send(text, sent: { time in sent.withLockedValue { $0 = time } }) }
        }
        if reply.isErrorReply { throw BenchError("\(op) refused: \(String(buffer: reply))") }
        guard let time = sent.withLockedValue({ $0 }) else { throw BenchError("\(op) was answered but never sent") }
        return (reply, time)
    }

    /// Sends without waiting for the reply.
    func fire(_ op: String, _ arguments: String) {
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        client.withLockedValue { $0?.send(#"{"id":\#(id),"op":"\#(op)","# + arguments + "}") }
    }

    func join(server: ServerUnderTest, session: String, name: String, host: Bool = false) async throws {
        let token = try server.token(session: session, role: host ? .host : .participant)
        let reply = try await request("join", #""session":"\#(session)","userName":"\#(name)","token":"\#(token)""#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.readableBytesView)) as? [String: Any]
        let result = object?["result"] as? [String: Any]
        let snapshot = result?["snapshot"] as? [String: Any]
        state.withLockedValue { state in
            state.user = result?["user"] as? Int ?? 0
            state.secret = result?["secret"] as? String ?? ""
            state.lastSeq = snapshot?["seq"] as? Int ?? 0
        }
    }

    func resume() async throws -> ByteBuffer {
        let (secret, seq) = state.withLockedValue { ($0.secret, $0.lastSeq) }
        return try await request("resume", #""secret":"\#(secret)","lastSeq":\#(seq)"#)
    }

    func drop() { client.withLockedValue { $0?.drop() } }
}
