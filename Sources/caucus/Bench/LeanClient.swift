import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

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
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(FrameHandler(onText: onText, onClose: onClose))
                            return true
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
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Drops the connection without a close handshake, as a network failure would.
    func drop() { channel.close(mode: .all, promise: nil) }

    func close() {
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer())
        channel.writeAndFlush(frame).whenComplete { _ in self.channel.close(promise: nil) }
    }
}

private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let onText: @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void
    let onClose: @Sendable () -> Void

    init(onText: @escaping @Sendable (ByteBuffer, ContinuousClock.Instant) -> Void, onClose: @escaping @Sendable () -> Void) {
        self.onText = onText
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text: onText(frame.unmaskedData, .now)
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
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
