public import CaucusCore
import Foundation

/// Makes join tokens, for `caucus token`, tests and the server's development app.
public enum TokenMinter {
    /// Mints an HS256 token with the Zoom Video SDK payload (and, for a console host token,
    /// its host link's generation: `caucus_host_link`).
    ///
    /// Refuses (with the code the verifier would use) to mint a token the verifier would
    /// always refuse, so a mistake surfaces here rather than at the join.
    public static func mint(
        app: AppCredentials, sessionName: String, role: RoleClaim, issuedAt: Instant, lifetimeSeconds: Int = 7200,
        userIdentity: String? = nil, sessionKey: String? = nil, hostLinkGeneration: Int? = nil
    ) throws -> String {
        try validate(app: app, sessionName: sessionName, lifetimeSeconds: lifetimeSeconds, userIdentity: userIdentity, sessionKey: sessionKey)
        if let hostLinkGeneration, !(0...TokenRules.maximumHostLinkGeneration).contains(hostLinkGeneration) {
            throw CaucusError(.invalidArguments, "caucus_host_link must be a whole number from 0 to \(TokenRules.maximumHostLinkGeneration).")
        }
        let issuedAtSeconds = floorSeconds(issuedAt)
        let payload = Payload(
            appKey: app.key, tpc: sessionName, roleType: role == .host ? 1 : 0, version: TokenRules.version,
            iat: issuedAtSeconds, exp: issuedAtSeconds + Int64(lifetimeSeconds),
            userIdentity: userIdentity.flatMap { $0.isEmpty ? nil : $0 },
            sessionKey: sessionKey.flatMap { $0.isEmpty ? nil : $0 }, hostLinkGeneration: hostLinkGeneration)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(try encoder.encode(payload))
        let signature = HS256Key(secret: app.secret).signature(for: Array(signingInput.utf8)[...])
        return signingInput + "." + Base64URL.encode(signature)
    }

    private static func validate(
        app: AppCredentials, sessionName: String, lifetimeSeconds: Int, userIdentity: String?, sessionKey: String?
    ) throws(CaucusError) {
        guard !app.secret.isEmpty else {
            throw CaucusError(.invalidArguments, "The app \(app.key) has an empty secret.")
        }
        guard !sessionName.allSatisfy(\.isWhitespace) else {
            throw CaucusError(.sessionNameEmpty, "The session name is empty.")
        }
        try TokenRules.checkLength(sessionName, "The session name", limit: app.limits.maxSessionNameLength, code: .sessionNameTooLong)
        guard lifetimeSeconds > 0 else {
            throw CaucusError(.tokenExpired, "A token must live at least one second.")
        }
        guard lifetimeSeconds <= TokenRules.maximumLifetimeSeconds else {
            throw CaucusError(.tokenLifetimeTooLong, "A token may live at most 48 hours (\(TokenRules.maximumLifetimeSeconds) seconds).")
        }
        try TokenRules.checkLength(userIdentity, "user_identity", limit: app.limits.maxUserIdentityLength, code: .userIdentityTooLong)
        try TokenRules.checkLength(sessionKey, "session_key", limit: app.limits.maxSessionKeyLength, code: .sessionKeyTooLong)
    }

    /// NumericDates are whole seconds here; flooring keeps `iat` from landing in the future.
    private static func floorSeconds(_ instant: Instant) -> Int64 {
        let (quotient, remainder) = instant.milliseconds.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    private struct Payload: Encodable {
        let appKey: String
        let tpc: String
        let roleType: Int
        let version: Int
        let iat: Int64
        let exp: Int64
        let userIdentity: String?
        let sessionKey: String?
        let hostLinkGeneration: Int?

        enum CodingKeys: String, CodingKey {
            case appKey = "app_key", tpc, roleType = "role_type", version, iat, exp
            case userIdentity = "user_identity", sessionKey = "session_key", hostLinkGeneration = "caucus_host_link"
        }
    }
}
