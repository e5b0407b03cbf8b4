/// The STUN attributes ICE uses (RFC 5389 §15, RFC 8445 §16.1); others are kept as they came.
public enum STUNAttribute: Hashable, Sendable {
    case mappedAddress(TransportAddress)
    case xorMappedAddress(TransportAddress)
    case username(String)
    /// The HMAC-SHA1 as it appears on the wire; the encoder computes it, a decoder keeps it.
    case messageIntegrity([UInt8])
    case fingerprint(UInt32)
    case errorCode(STUNErrorCode)
    case software(String)
    case priority(UInt32)
    case useCandidate
    case iceControlled(tieBreaker: UInt64)
    case iceControlling(tieBreaker: UInt64)
    case other(type: UInt16, value: [UInt8])

    enum Kind: UInt16 {
        case mappedAddress = 0x0001
        case username = 0x0006
        case messageIntegrity = 0x0008
        case errorCode = 0x0009
        case xorMappedAddress = 0x0020
        case priority = 0x0024
        case useCandidate = 0x0025
        case software = 0x8022
        case fingerprint = 0x8028
        case iceControlled = 0x8029
        case iceControlling = 0x802A
    }

    var typeCode: UInt16 {
        switch self {
        case .mappedAddress: Kind.mappedAddress.rawValue
        case .xorMappedAddress: Kind.xorMappedAddress.rawValue
        case .username: Kind.username.rawValue
        case .messageIntegrity: Kind.messageIntegrity.rawValue
        case .fingerprint: Kind.fingerprint.rawValue
        case .errorCode: Kind.errorCode.rawValue
        case .software: Kind.software.rawValue
        case .priority: Kind.priority.rawValue
        case .useCandidate: Kind.useCandidate.rawValue
        case .iceControlled: Kind.iceControlled.rawValue
        case .iceControlling: Kind.iceControlling.rawValue
        case .other(let type, _): type
        }
    }
}

/// ERROR-CODE (RFC 5389 §15.6): a class 3–6 and a number, with a reason phrase.
public struct STUNErrorCode: Hashable, Sendable {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    public static let unauthorized = STUNErrorCode(code: 401, reason: "Unauthorized")
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")
}
