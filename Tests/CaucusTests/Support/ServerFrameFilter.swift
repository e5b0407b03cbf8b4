import NIOCore
import NIOConcurrencyHelpers

/// Drops one of the server's WebSocket frames on its way to the client: the next text frame
/// whose payload contains a marker, as a network path (or a server bug) that loses an event
/// would. Everything else passes byte for byte: the HTTP upgrade response first, then the
/// frames, which the server sends unmasked (RFC 6455 §5.2).
final class ServerFrameFilter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The marker of the next frame to drop, shared by every connection through the proxy.
    final class Marker: Sendable {
        private let marker = NIOLockedValueBox<[UInt8]?>(nil)

        func set(_ text: String) { marker.withLockedValue { $0 = Array(text.utf8) } }

        /// Whether `payload` is the frame to drop; the marker is then used up.
        func takes(_ payload: ByteBufferView) -> Bool {
            marker.withLockedValue { marker in
                guard let wanted = marker, payload.firstRange(of: wanted) != nil else { return false }
                marker = nil
                return true
            }
        }
    }

    /// Every ICE ufrag the server's frames gave (`a=ice-ufrag:` in a `mediaOffer` answer), so a
    /// test can tell this client's media path among others' (`LossyUDPRelay.cut(serverUfrags:)`).
    final class ICEUfrags: Sendable {
        private let seen = NIOLockedValueBox<Set<String>>([])
        private static let attribute = Array("a=ice-ufrag:".utf8)

        var all: Set<String> { seen.withLockedValue { $0 } }

        func note(_ payload: ByteBufferView) {
            var rest = payload[...]
            while let found = rest.firstRange(of: Self.attribute) {
                rest = rest[found.upperBound...]
                // ice-char (RFC 8839): letters, digits, "+" and "/", which the server's JSON
                // writes escaped, as "\/".
                var ufrag: [UInt8] = []
                var index = rest.startIndex
                while index < rest.endIndex {
                    let byte = rest[index]
                    if byte.isLetterOrDigitASCII || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") {
                        ufrag.append(byte)
                    } else if byte == UInt8(ascii: "\\"), rest.index(after: index) < rest.endIndex,
                        rest[rest.index(after: index)] == UInt8(ascii: "/")
                    {
                        ufrag.append(UInt8(ascii: "/"))
                        index = rest.index(after: index)
                    } else {
                        break
                    }
                    index = rest.index(after: index)
                }
                if !ufrag.isEmpty { seen.withLockedValue { _ = $0.insert(String(decoding: ufrag, as: UTF8.self)) } }
            }
        }
    }

    private let marker: Marker
    private let ufrags: ICEUfrags
    private var pending = ByteBuffer()
    private var upgraded = false

    init(dropping marker: Marker, noting ufrags: ICEUfrags) {
        self.marker = marker
        self.ufrags = ufrags
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        if !upgraded {
            guard let end = pending.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { return }
            let length = end - pending.readerIndex
            context.fireChannelRead(wrapInboundOut(pending.readSlice(length: length)!))
            upgraded = true
        }
        while let (frame, payload) = nextFrame() {
            ufrags.note(payload.readableBytesView)
            if !marker.takes(payload.readableBytesView) { context.fireChannelRead(wrapInboundOut(frame)) }
        }
        pending.discardReadBytes()
    }

    /// The next whole frame in `pending` and its payload, if it has arrived.
    private func nextFrame() -> (frame: ByteBuffer, payload: ByteBuffer)? {
        let view = pending.readableBytesView
        guard view.count >= 2 else { return nil }
        let short = Int(view[view.startIndex + 1] & 0x7F)
        var header = 2
        var length = short
        if short == 126 {
            guard view.count >= 4 else { return nil }
            length = Int(view[view.startIndex + 2]) << 8 | Int(view[view.startIndex + 3])
            header = 4
        } else if short == 127 {
            guard view.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(view[view.startIndex + $1]) }
            header = 10
        }
        guard view.count >= header + length else { return nil }
        let frame = pending.readSlice(length: header + length)!
        return (frame, frame.getSlice(at: frame.readerIndex + header, length: length)!)
    }
}

extension UInt8 {
    fileprivate var isLetterOrDigitASCII: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
