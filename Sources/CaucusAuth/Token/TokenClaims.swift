import CaucusCore

/// The payload's claims with their types checked, values not yet judged (that needs the
/// signature first, and the app's limits).
struct TokenClaims {
    let appKey: String
    let topic: String
    let roleType: Double
    let version: Double
    let issuedAt: Instant
    let expiresAt: Instant
    let userIdentity: String?
    let sessionKey: String?
    /// Caucus's own: the console host link's generation a host token was given for.
    let hostLinkGeneration: Int?

    init(_ payload: JSONFields) throws(CaucusError) {
        appKey = try Self.string("app_key", in: payload)
        topic = try Self.string("tpc", in: payload)
        roleType = try Self.number("role_type", in: payload)
        version = try Self.number("version", in: payload)
        issuedAt = try Self.numericDate("iat", in: payload)
        expiresAt = try Self.numericDate("exp", in: payload)
        userIdentity = try Self.optionalString("user_identity", in: payload)
        sessionKey = try Self.optionalString("session_key", in: payload)
        hostLinkGeneration = try Self.optionalCount("caucus_host_link", in: payload)
    }

    private static func string(_ name: String, in payload: JSONFields) throws(CaucusError) -> String {
        switch payload[name] {
        case .string(let value): return value
        case nil, .null: throw missing(name)
        default: throw wrongType(name, "a string")
        }
    }

    private static func number(_ name: String, in payload: JSONFields) throws(CaucusError) -> Double {
        switch payload[name] {
        case .number(let value): return value
        case nil, .null: throw missing(name)
        default: throw wrongType(name, "a number")
        }
    }

    /// Seconds since 1970 (RFC 7519 NumericDate), fractions allowed, read to the millisecond.
    private static func numericDate(_ name: String, in payload: JSONFields) throws(CaucusError) -> Instant {
        let seconds = try number(name, in: payload)
        guard seconds >= 0, seconds <= TokenRules.latestNumericDate else {
            throw wrongType(name, "a date in seconds since 1970")
        }
        return Instant(milliseconds: Int64((seconds * 1000).rounded(.down)))
    }

    /// Zoom's generators leave these out, send null or send an empty string when unused; all mean "none".
    private static func optionalString(_ name: String, in payload: JSONFields) throws(CaucusError) -> String? {
        switch payload[name] {
        case nil, .null: return nil
        case .string(let value): return value.isEmpty ? nil : value
        default: throw wrongType(name, "a string")
        }
    }

    /// A whole number from 0 up, or none.
    private static func optionalCount(_ name: String, in payload: JSONFields) throws(CaucusError) -> Int? {
        switch payload[name] {
        case nil, .null: return nil
        case .number(let value):
            guard value >= 0, value <= Double(TokenRules.maximumHostLinkGeneration), value.rounded(.down) == value else { throw wrongType(name, "a whole number from 0") }
            return Int(value)
        default: throw wrongType(name, "a whole number from 0")
        }
    }

    private static func missing(_ name: String) -> CaucusError {
        CaucusError(.tokenMissingClaim, "The token has no \(name) claim.")
    }

    private static func wrongType(_ name: String, _ expected: String) -> CaucusError {
        CaucusError(.tokenMissingClaim, "The token's \(name) claim must be \(expected).")
    }
}
