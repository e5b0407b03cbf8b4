@testable import CaucusServer
import NIOCore
import NIOEmbedded
import NIOWebSocket
import NIOConcurrencyHelpers

/// One `WebSocketConnectionHandler` in a NIO testing channel, behind the server's frame
/// decoder, fed raw client bytes: the handler as the server runs it, with no socket, and time
/// that moves only when a test moves it.
struct HandlerHarness {
    static let maxMessageBytes = 1024
    static let keepAlive = TimeAmount.seconds(30)
    static let closeTimeout = TimeAmount.seconds(2)

    let channel: NIOAsyncTestingChannel
    let conversation: RecordingConversation
    let reads: ReadCounter

    static func start(admission: JoinAdmission? = nil) async throws -> HandlerHarness {
        let conversation = RecordingConversation()
        let reads = ReadCounter()
        let channel = try await NIOAsyncTestingChannel { channel in
            let limits = WebSocketConnectionHandler.Limits(
                maxMessageBytes: HandlerHarness.maxMessageBytes, keepAlive: HandlerHarness.keepAlive,
                closeTimeout: HandlerHarness.closeTimeout, maxQueuedMessages: 16)
            try channel.pipeline.syncOperations.addHandler(reads)
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SkippingFrameDecoder(maxFrameBytes: HandlerHarness.maxMessageBytes)))
            try channel.pipeline.syncOperations.addHandler(
                WebSocketConnectionHandler(conversation: conversation, limits: limits, admission: admission))
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        return HandlerHarness(channel: channel, conversation: conversation, reads: reads)
    }

    /// Sends a client frame, masked as clients must unless `masked` is false.
    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) async throws {
        try await sendRaw(ClientFrameBytes.frame(opcode, payload, fin: fin, masked: masked))
    }

    func send(text: String, fin: Bool = true) async throws {
        try await send(.text, Array(text.utf8), fin: fin)
    }

    func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.writeInbound(ByteBuffer(bytes: bytes))
        await channel.testingEventLoop.run()
    }

    /// The next frame the server wrote, if any.
    func nextFrame() async throws -> (opcode: WebSocketOpcode, payload: [UInt8])? {
        await channel.testingEventLoop.run()
        guard var buffer = try await channel.readOutbound(as: ByteBuffer.self) else { return nil }
        let first = buffer.readInteger(as: UInt8.self)!
        let second = buffer.readInteger(as: UInt8.self)!
        precondition(second & 0x80 == 0, "a server frame is never masked")
        var length = Int(second & 0x7F)
        if length == 126 { length = Int(buffer.readInteger(as: UInt16.self)!) }
        if length == 127 { length = Int(buffer.readInteger(as: UInt64.self)!) }
        return (WebSocketOpcode(encodedWebSocketOpcode: first & 0x0F)!, buffer.readBytes(length: length)!)
    }

    /// The code of the next frame, which must be a close.
    func nextCloseCode() async throws -> UInt16? {
        guard let frame = try await nextFrame(), frame.opcode == .connectionClose, frame.payload.count >= 2 else { return nil }
        return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
    }

    var isOpen: Bool { channel.isActive }
}

/// Client frames as RFC 6455 §5.2 lays them out.
enum ClientFrameBytes {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | UInt8(webSocketOpcode: opcode)]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case 0...125: bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        guard masked else { return bytes + payload }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func close(code: UInt16, reason: [UInt8] = []) -> [UInt8] {
        frame(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }
}

/// Stands in for the session: records each message it is handed and, while held, keeps the
/// handler waiting on the current one, as a slow session would.
final class RecordingConversation: WebSocketConversation {
    private struct State {
        var received: [String] = []
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    func handle(_ inbound: WebSocketSession.Inbound, phase: WebSocketSession.Phase) async -> WebSocketSession.Phase {
        let text: String
        switch inbound {
        case .text(let bytes): text = String(buffer: bytes)
        case .binary: text = "<binary>"
        case .closed: text = "<closed>"
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed: [CheckedContinuation<Void, Never>] = state.withLockedValue { state in
                state.received.append(text)
                if state.held { state.waiting.append(continuation) } else { continuation.resume() }
                let ready = state.watchers.filter { $0.count <= state.received.count }
                state.watchers.removeAll { $0.count <= state.received.count }
                return ready.map(\.continuation)
            }
            for watcher in resumed { watcher.resume() }
        }
        return phase
    }

    var received: [String] { state.withLockedValue { $0.received } }

    func hold() { state.withLockedValue { $0.held = true } }

    func release() {
        let waiting = state.withLockedValue { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once `count` messages have been handed over.
    func waitForMessages(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                if state.received.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Counts the reads that reach the socket: the handler holds them back while its queue is full.
final class ReadCounter: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    private let count = NIOLockedValueBox(0)

    var reads: Int { count.withLockedValue { $0 } }

    func read(context: ChannelHandlerContext) {
        count.withLockedValue { $0 += 1 }
        context.read()
    }
}
