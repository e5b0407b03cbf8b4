/// A STUN message's class (RFC 5389 §6): the two class bits are interleaved with the method bits.
public enum STUNClass: UInt16, Sendable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method; ICE uses only Binding.
public struct STUNMethod: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }
    public static let binding = STUNMethod(rawValue: 0x001)
}

public struct STUNMessageType: Hashable, Sendable {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)

    /// The 14-bit field M11–M7 C1 M6–M4 C0 M3–M0.
    var rawValue: UInt16 {
        let m = method.rawValue
        let c = messageClass.rawValue
        return (m & 0x000F) | (c & 0b01) << 4 | (m & 0x0070) << 1 | (c & 0b10) << 7 | (m & 0x0F80) << 2
    }

    init?(rawValue: UInt16) {
        guard rawValue & 0xC000 == 0 else { return nil }
        let c = (rawValue >> 4) & 0b01 | (rawValue >> 7) & 0b10
        let m = rawValue & 0x000F | (rawValue >> 1) & 0x0070 | (rawValue >> 2) & 0x0F80
        self.init(method: STUNMethod(rawValue: m), messageClass: STUNClass(rawValue: c)!)
    }
}

/// The 96-bit transaction ID that pairs a response with its request.
public struct STUNTransactionID: Hashable, Sendable {
    public let bytes: [UInt8]

    /// Nil unless exactly 12 bytes are given.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        self.bytes = bytes
    }

    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }
}
