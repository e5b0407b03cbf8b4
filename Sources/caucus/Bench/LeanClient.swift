import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import NIOConcurrencyHelpers

/// A bare WebSocket client for load generation: no task per user, no JSON decoding of
/// events, just frames handed to a callback on the event loop. It keeps the generator from
/// being the bottleneck when thousands of simulated users share a core with the server.
final class LeanClient: Sendable {
    let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    /// Connects and upgrades; `onText` gets every text frame's bytes with the time it arrived.
    static func connect(
        host: String, port: Int, group: any EventLoopGroup,
        onText: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void,
        onClose: @escaping @Sendable () -> Void = {}
    ) async throws -> LeanClient {
        let upgraded = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 24) { channel, _ in
                        // NIO's general frame decoder (a frame value and a pipeline hop per frame)
                        // was most of the generator's work in a storm into a big session: the
                        // server's frames are simple enough to split here.
                        do {
                            let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                            try channel.pipeline.syncOperations.addHandler(FrameSplitter(onText: onText, onClose: onClose), position: .after(decoder.handler))
                            return channel.pipeline.syncOperations.removeHandler(context: decoder).map { true }
                        } catch {
                            return channel.eventLoop.makeFailedFuture(error)
                        }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/ws", headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { false } })
                    let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                    return negotiated.map { ($0, channel) }
                }
            }
        let (accepted, channel) = try await upgraded.get()
        guard accepted else { throw BenchError("the server refused the WebSocket upgrade") }
        return LeanClient(channel: channel)
    }

    /// Sends one text frame (masked, as clients must).
    func send(_ text: String) {
        send(text, sent: { _ in })
    }

    /// The same, handing `sent` the time its write begins on the connection's loop: when the
    /// bytes leave this process, however busy the loop was.
    func send(_ text: String, sent: @escaping @Sendable (NIODeadline) -> Void) {
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        let channel = self.channel
        channel.eventLoop.execute {
            sent(.now())
            channel.writeAndFlush(frame, promise: nil)
        }
    }

    /// Drops the connection without a close handshake, as a network failure would.
    func drop() { channel.close(mode: .all, promise: nil) }

    func close() {
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer())
        channel.writeAndFlush(frame).whenComplete { _ in self.channel.close(promise: nil) }
    }
}

/// The server's frames split out of the byte stream directly. The server never masks or
/// fragments a frame, so each is a 2-, 4- or 10-byte header and its payload; anything masked
/// or larger than 16 MiB closes the connection.
private final class FrameSplitter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    let onText: @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void
    let onClose: @Sendable () -> Void
    /// The start of a frame whose rest has not arrived yet.
    private var partial: ByteBuffer?

    init(onText: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void, onClose: @escaping @Sendable () -> Void) {
        self.onText = onText
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        let arrived = ContinuousClock.now
        if var earlier = partial.take() {
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        while true {
            switch Self.nextFrame(in: &bytes) {
            case .frame(let opcode, let payload): handle(opcode, payload, arrived: arrived, context: context)
            case .incomplete:
                if bytes.readableBytes > 0 { partial = bytes }
                return
            case .invalid:
                context.close(promise: nil)
                return
            }
        }
    }

    private enum Next {
        case frame(opcode: UInt8, payload: ByteBuffer)
        case incomplete
        case invalid
    }

    private static func nextFrame(in bytes: inout ByteBuffer) -> Next {
        let start = bytes.readerIndex
        guard let first = bytes.getInteger(at: start, as: UInt8.self), let second = bytes.getInteger(at: start + 1, as: UInt8.self) else { return .incomplete }
        guard second & 0x80 == 0 else { return .invalid }
        var header = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let extended = bytes.getInteger(at: start + 2, as: UInt16.self) else { return .incomplete }
            header = 4
            length = Int(extended)
        } else if length == 127 {
            guard let extended = bytes.getInteger(at: start + 2, as: UInt64.self) else { return .incomplete }
            guard extended <= 1 << 24 else { return .invalid }
            header = 10
            length = Int(extended)
        }
        guard let payload = bytes.getSlice(at: start + header, length: length) else { return .incomplete }
        bytes.moveReaderIndex(forwardBy: header + length)
        return .frame(opcode: first & 0x0F, payload: payload)
    }

    private func handle(_ opcode: UInt8, _ payload: ByteBuffer, arrived: ContinuousClock.Instant, context: ChannelHandlerContext) {
        switch WebSocketOpcode(encodedWebSocketOpcode: opcode) {
        case .text: onText(payload, arrived)
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose: context.close(promise: nil)
        default: break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        onClose()
        context.fireChannelInactive()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ByteBuffer {
    /// Where `needle` starts among the readable bytes. A plain loop over raw bytes: generic
    /// collection search is far too slow for a load generator reading megabytes a second.
    func offset(of needle: [UInt8], within limit: Int = .max) -> Int? {
        withUnsafeReadableBytes { whole -> Int? in
            let haystack = UnsafeRawBufferPointer(rebasing: whole.prefix(limit))
            return needle.withUnsafeBufferPointer { pattern -> Int? in
                guard let first = pattern.first, pattern.count <= haystack.count else { return nil }
                var index = 0
                let last = haystack.count - pattern.count
                while index <= last {
                    if haystack[index] == first {
                        var matched = 1
                        while matched < pattern.count && haystack[index + matched] == pattern[matched] { matched += 1 }
                        if matched == pattern.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }

    /// The integer after `"key":` in a frame, without decoding the JSON.
    func integer(after key: String) -> Int? { integer(following: "\"\(key)\":") }

    /// The integer of the frame's first member when it is `key`: the server writes a reply's
    /// `re` and an event's `seq` first, so a reader need not scan a 100 KB join reply for them.
    func leadingInteger(_ key: String) -> Int? {
        let prefix = Array("{\"\(key)\":".utf8)
        return integer(following: prefix, within: prefix.count)
    }

    /// Whether a reply is an error (`{"re":N,"error":…}`), looking only at its start.
    var isErrorReply: Bool { offset(of: Array(#","error":"#.utf8), within: 32) != nil }

    /// The integer right after the first occurrence of `prefix`.
    func integer(following prefix: String) -> Int? { integer(following: Array(prefix.utf8)) }

    /// The integer after `needle`, which must start within the first `limit` bytes.
    func integer(following needle: [UInt8], within limit: Int = .max) -> Int? {
        guard let start = offset(of: needle, within: limit) else { return nil }
        return withUnsafeReadableBytes { bytes -> Int? in
            var value = 0
            var index = start + needle.count
            guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                value = value * 10 + Int(bytes[index] - 48)
                index += 1
            }
            return value
        }
    }

    func contains(_ text: String) -> Bool { offset(of: Array(text.utf8)) != nil }
}
