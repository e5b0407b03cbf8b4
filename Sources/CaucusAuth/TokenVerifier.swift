public import CaucusCore

/// Checks join tokens: HS256 JWTs with the Zoom Video SDK payload, signed with an app's secret.
///
/// Synchronous and cheap (no actor hop, no key derivation per call), because it runs on every join.
public struct TokenVerifier: Sendable {
    private struct App: Sendable {
        let credentials: AppCredentials
        let key: HS256Key
    }

    private let apps: [String: App]

    /// When two apps share a key the first wins. An app with an empty secret is left out:
    /// anyone could sign a token for it.
    public init(apps: [AppCredentials]) {
        var table: [String: App] = [:]
        for app in apps where !app.secret.isEmpty && table[app.key] == nil {
            table[app.key] = App(credentials: app, key: HS256Key(secret: app.secret))
        }
        self.apps = table
    }

    /// Verifies `token` for a join of `sessionName` at `now`.
    ///
    /// The checks run in a fixed order (shape, algorithm, claim types, app, signature, version,
    /// role, times, session, lengths) so that one token always fails with the same code, and
    /// nothing the payload says is judged before the signature proves who said it.
    public func verify(_ token: String, sessionName: String, now: Instant) throws(CaucusError) -> VerifiedToken {
        let parts = try CompactToken(token)
        try Self.checkHeader(parts.header)
        let claims = try TokenClaims(parts.payload)
        guard let app = apps[claims.appKey] else {
            throw CaucusError(.unknownApp, "The token's app_key names no app of this server.")
        }
        guard app.key.isValid(signature: parts.signature, for: parts.signingInput) else {
            throw CaucusError(.tokenSignatureInvalid, "The token's signature does not match its app's secret.")
        }
        guard claims.version == Double(TokenRules.version) else {
            throw CaucusError(.invalidTokenVersion, "The token's version must be \(TokenRules.version).")
        }
        let role = try Self.role(claims.roleType)
        try Self.checkTimes(claims, now: now)
        guard SessionName.matches(claims.topic, sessionName) else {
            throw CaucusError(.tokenSessionMismatch, "The token is for session \"\(claims.topic)\", not \"\(sessionName)\".")
        }
        let limits = app.credentials.limits
        try TokenRules.checkLength(claims.userIdentity, "The token's user_identity", limit: limits.maxUserIdentityLength, code: .userIdentityTooLong)
        try TokenRules.checkLength(claims.sessionKey, "The token's session_key", limit: limits.maxSessionKeyLength, code: .sessionKeyTooLong)
        return VerifiedToken(
            appKey: claims.appKey, sessionName: claims.topic, role: role, userIdentity: claims.userIdentity,
            sessionKey: claims.sessionKey, issuedAt: claims.issuedAt, expiresAt: claims.expiresAt,
            hostLinkGeneration: claims.hostLinkGeneration)
    }

    /// Only HS256: accepting what the header names would let `none` or a weaker or confused
    /// algorithm through.
    private static func checkHeader(_ header: JSONFields) throws(CaucusError) {
        guard header["alg"] == .string(TokenRules.algorithm) else {
            throw CaucusError(.tokenAlgorithmRefused, "The token must be signed with \(TokenRules.algorithm).")
        }
        // RFC 7515 §4.1.11: a verifier that does not understand a critical extension must refuse.
        guard header["crit"] == nil else {
            throw CaucusError(.tokenMalformed, "The token names critical header extensions, which this server does not support.")
        }
    }

    private static func role(_ roleType: Double) throws(CaucusError) -> RoleClaim {
        switch roleType {
        case 1: .host
        case 0: .participant
        default: throw CaucusError(.invalidRoleType, "The token's role_type must be 1 (host) or 0 (participant).")
        }
    }

    private static func checkTimes(_ claims: TokenClaims, now: Instant) throws(CaucusError) {
        guard claims.issuedAt <= now.adding(seconds: TokenRules.issuedAtLeewaySeconds) else {
            throw CaucusError(.tokenNotYetValid, "The token was issued in the future (iat is ahead of the server's clock).")
        }
        guard now < claims.expiresAt else {
            throw CaucusError(.tokenExpired, "The token has expired.")
        }
        guard claims.expiresAt <= claims.issuedAt.adding(seconds: TokenRules.maximumLifetimeSeconds) else {
            throw CaucusError(.tokenLifetimeTooLong, "The token's exp is more than 48 hours after its iat.")
        }
    }
}
