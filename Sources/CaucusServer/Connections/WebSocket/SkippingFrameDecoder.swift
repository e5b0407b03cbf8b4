import NIOCore
import NIOWebSocket

/// NIO's `WebSocketFrameDecoder`, except that a frame longer than the limit is skipped
/// instead of ending the decoder. NIO's decoder throws on such a frame and then refuses every
/// later byte, so the rest of the oversize frame used to reach the handler as an error and
/// the socket was reset at once. Skipping it lets the handler answer 1009 and still read the
/// client's close: the close handshake the protocol document promises.
struct SkippingFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = WebSocketFrame

    /// Fired down the pipeline, in place of the frame, once per oversize frame.
    struct OversizeFrame: Sendable, Equatable {
        let length: UInt64
    }

    private var decoder: WebSocketFrameDecoder
    private let maxFrameBytes: Int
    /// Bytes of an oversize frame still to drop.
    private var skipping: UInt64 = 0

    init(maxFrameBytes: Int) {
        decoder = WebSocketFrameDecoder(maxFrameSize: maxFrameBytes)
        self.maxFrameBytes = maxFrameBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if skipping > 0 {
            let dropped = Int(min(skipping, UInt64(buffer.readableBytes)))
            buffer.moveReaderIndex(forwardBy: dropped)
            skipping -= UInt64(dropped)
            return skipping > 0 ? .needMoreData : .continue
        }
        guard let (headerBytes, payloadBytes) = Self.frameSize(in: buffer) else { return .needMoreData }
        if payloadBytes > UInt64(maxFrameBytes) {
            context.fireUserInboundEventTriggered(OversizeFrame(length: payloadBytes))
            skipping = UInt64(headerBytes) &+ payloadBytes
            return .continue
        }
        // Only whole frames reach NIO's decoder, so it is always at a frame boundary here.
        guard buffer.readableBytes >= headerBytes + Int(payloadBytes) else { return .needMoreData }
        return try decoder.decode(context: context, buffer: &buffer)
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        .needMoreData
    }

    /// The length of the header (with its mask) and of the payload of the frame at the reader
    /// index, once the header has arrived (RFC 6455 §5.2).
    static func frameSize(in buffer: ByteBuffer) -> (header: Int, payload: UInt64)? {
        guard let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self) else { return nil }
        let mask = second & 0x80 == 0 ? 0 : 4
        switch second & 0x7F {
        case 126:
            guard let length = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            return (4 + mask, UInt64(length))
        case 127:
            guard let length = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            return (10 + mask, length)
        case let length:
            return (2 + mask, UInt64(length))
        }
    }
}
