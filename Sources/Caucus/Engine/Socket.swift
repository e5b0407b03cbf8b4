import Logging
import Synchronization
import WSClient

/// One WebSocket connection to the server, on WSClient (SwiftNIO): the same code on Linux and
/// Apple platforms. Frames to send go through `send`; what arrives comes out of `inbound`,
/// ending with `.closed`.
final class Socket: Sendable {
    enum Inbound: Sendable {
        case text(String)
        /// The connection is over. `code` is the server's close code (4002 session ended, …),
        /// nil if the connection dropped without one.
        case closed(code: UInt16?, reason: String?)
    }

    private static let counter = Atomic<Int>(0)

    let id: Int
    let inbound: AsyncStream<Inbound>
    private let outgoing: AsyncStream<String>.Continuation
    /// Why opening failed, if it did.
    private let failure = Mutex<String?>(nil)

    private init(inbound: AsyncStream<Inbound>, outgoing: AsyncStream<String>.Continuation) {
        id = Self.counter.add(1, ordering: .relaxed).newValue
        self.inbound = inbound
        self.outgoing = outgoing
    }

    /// Connects; returns once the WebSocket is open.
    static func connect(to url: String, configuration: CaucusSession.Configuration) async throws(SessionError) -> Socket {
        let (inbound, received) = AsyncStream.makeStream(of: Inbound.self)
        let (outbound, sender) = AsyncStream.makeStream(of: String.self)
        let (opened, opening) = AsyncStream.makeStream(of: Void.self)
        let socket = Socket(inbound: inbound, outgoing: sender)
        let client = WebSocketClientConfiguration(
            maxFrameSize: configuration.maxFrameSize, autoPing: .enabled(timePeriod: configuration.pingInterval))
        let maxSize = configuration.maxFrameSize
        let logger = configuration.logger
        Task {
            var code: UInt16?
            var reason: String?
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: client, logger: logger) { inbound, writer, _ in
                    opening.yield()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outbound { try await writer.write(.text(text)) }
                            try await writer.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: maxSize) {
                            if case .text(let text) = message { received.yield(.text(text)) }
                        }
                        group.cancelAll()
                    }
                }
                if let close {
                    code = Self.number(of: close)
                    reason = close.reason
                }
            } catch {
                socket.failure.withLock { $0 = "\(error)" }
                reason = "\(error)"
            }
            opening.finish()
            sender.finish()
            received.yield(.closed(code: code, reason: reason))
            received.finish()
        }
        // Opening is bounded like a request: a server that accepts but never upgrades fails it.
        let limit = configuration.requestTimeout
        let watchdog = Task {
            try await Task.sleep(for: limit)
            socket.failure.withLock { $0 = $0 ?? "no WebSocket upgrade within \(limit)" }
            opening.finish()
        }
        defer { watchdog.cancel() }
        var iterator = opened.makeAsyncIterator()
        guard await iterator.next() != nil else {
            // Should the upgrade still complete, the connection closes at once.
            socket.close()
            throw .connectionFailed(socket.failure.withLock { $0 } ?? "the connection closed while opening")
        }
        return socket
    }

    func send(_ text: String) { outgoing.yield(text) }

    /// Closes the connection from this side: a normal close once what is queued is sent.
    func close() { outgoing.finish() }

    /// The close code as a number. WSClient names the standard codes; Caucus's own (1012,
    /// 4001–4006) come through as `unknown`. Only those and a normal close matter here.
    private static func number(of close: WebSocketCloseFrame) -> UInt16? {
        switch close.closeCode {
        case .unknown(let number): number
        case .normalClosure: 1000
        default: nil
        }
    }
}
