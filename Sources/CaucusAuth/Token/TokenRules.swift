import CaucusCore

/// The numbers the token rules are made of, shared by the verifier and the minter so that
/// the minter never produces a token the verifier refuses.
enum TokenRules {
    static let algorithm = "HS256"
    static let version = 1
    static let maximumLifetimeSeconds = 48 * 3600
    /// The largest console host link generation a token may carry (`caucus_host_link`).
    static let maximumHostLinkGeneration = 1_000_000_000
    /// How far `iat` may run ahead of the server's clock: the minter's clock may be a little fast.
    static let issuedAtLeewaySeconds = 60
    /// Far above any real token (a Zoom-style token is about 400 bytes), low enough that a
    /// hostile join costs the server next to nothing.
    static let maximumTokenBytes = 8 * 1024
    /// NumericDates beyond the year 9999 are nonsense, and refusing them keeps the conversion
    /// to milliseconds far from overflow.
    static let latestNumericDate: Double = 253_402_300_799

    /// Lengths count Unicode scalars, as every limit in `SessionLimits` does.
    static func checkLength(_ value: String?, _ what: String, limit: Int, code: CaucusError.Code) throws(CaucusError) {
        guard let value, value.unicodeScalars.count > limit else { return }
        throw CaucusError(code, "\(what) is longer than \(limit) characters.")
    }
}
