import NIOCore

/// A client's close frame, checked as RFC 6455 §5.5.1 and §7.4 require: empty, or a code a
/// peer may send followed by a UTF-8 reason. Anything else fails the connection with 1002.
enum ClientClose: Equatable {
    /// `nil` when the client gave no code.
    case valid(code: UInt16?)
    case invalid(reason: String)

    init(payload: ByteBuffer) {
        var payload = payload
        guard payload.readableBytes > 0 else {
            self = .valid(code: nil)
            return
        }
        guard let code = payload.readInteger(as: UInt16.self) else {
            self = .invalid(reason: "A close payload of one byte holds no code.")
            return
        }
        guard Self.maySend(code) else {
            self = .invalid(reason: "Close code \(code) may not be sent.")
            return
        }
        guard String(validating: payload.readableBytesView, as: UTF8.self) != nil else {
            self = .invalid(reason: "A close reason must be UTF-8.")
            return
        }
        self = .valid(code: code)
    }

    /// Codes an endpoint may put on the wire: the ones RFC 6455 defines for that (not 1004,
    /// 1005, 1006 or 1015, which are reserved or only reported locally), the ones IANA has
    /// registered since (1012–1014), and the ranges for libraries and applications. The rest
    /// of 0–2999 is unassigned.
    static func maySend(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
