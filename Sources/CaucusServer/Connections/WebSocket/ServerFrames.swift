import NIOCore
import NIOWebSocket

/// WebSocket frames as the server sends them, already framed: a server's frames are never
/// masked, so one event's bytes (header included) are the same for every recipient and are
/// written to each socket as they are, with no per-delivery header or copy.
enum ServerFrames {
    /// Bytes kept free in front of an encoded payload for the largest header a text frame needs.
    static let headroom = 10

    /// Frames a payload written after `headroom` reserved bytes: the header goes in front of it.
    /// `bytes` must start with `headroom` placeholder bytes.
    static func text(reservedFront bytes: [UInt8]) -> ByteBuffer {
        let length = bytes.count - headroom
        var header: [UInt8] = [0x81]
        switch length {
        case 0...125: header.append(UInt8(length))
        case 126...0xFFFF: header += [126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: header += [127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        }
        var buffer = ByteBuffer(bytes: bytes)
        buffer.moveReaderIndex(forwardBy: headroom - header.count)
        buffer.setBytes(header, at: buffer.readerIndex)
        return buffer
    }

    /// A control frame (close, ping, pong): at most 125 bytes of payload, as RFC 6455 requires.
    static func control(_ opcode: WebSocketOpcode, payload: ByteBuffer) -> ByteBuffer {
        var payload = payload
        let length = min(payload.readableBytes, 125)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(2 + length)
        buffer.writeInteger(UInt8(0x80) | UInt8(webSocketOpcode: opcode))
        buffer.writeInteger(UInt8(length))
        buffer.writeImmutableBuffer(payload.readSlice(length: length)!)
        return buffer
    }

    /// A close frame with a code and a reason (cut to fit a control frame, on a scalar boundary).
    static func close(code: UInt16, reason: String) -> ByteBuffer {
        var payload = ByteBuffer()
        payload.writeInteger(code)
        var room = 123
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard encoded.count <= room else { break }
            payload.writeBytes(encoded)
            room -= encoded.count
        }
        return control(.connectionClose, payload: payload)
    }
}
