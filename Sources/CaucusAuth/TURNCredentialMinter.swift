public import CaucusCore
import Foundation
internal import Crypto

/// Time-limited TURN credentials from a secret shared with the TURN server: coturn's "TURN REST
/// API" scheme (`use-auth-secret`, `static-auth-secret`). The username is `<expiry>:<name>`
/// (the expiry in Unix seconds), the password `base64(HMAC-SHA1(secret, username))`; the TURN
/// server recomputes the password from the username and refuses a username whose expiry has
/// passed. The secret never leaves whoever holds this minter: only the derived pair does.
public struct TURNCredentialMinter: Sendable {
    /// How long a credential may start new relays (an allocation made before the expiry lives on).
    public let lifetimeSeconds: Int64
    private let key: SymmetricKey

    /// `secret` is used as its bytes, exactly as coturn uses its `static-auth-secret`.
    public init(secret: String, lifetimeSeconds: Int64) {
        self.key = SymmetricKey(data: Array(secret.utf8))
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// A credential for `name` (who relays, as the TURN server will log it), valid from `now`
    /// for `lifetimeSeconds`, the expiry counted from `now` rounded down to the second.
    public func credential(for name: String, at now: Instant) -> TURNCredential {
        let (seconds, remainder) = now.milliseconds.quotientAndRemainder(dividingBy: 1000)
        let expiry = (remainder < 0 ? seconds - 1 : seconds) + lifetimeSeconds
        let username = "\(expiry):\(name)"
        return TURNCredential(username: username, password: password(for: username), expiresAt: expiry)
    }

    /// The password coturn expects for `username`: base64 of HMAC-SHA1 under the secret.
    public func password(for username: String) -> String {
        Data(HMAC<Insecure.SHA1>.authenticationCode(for: Array(username.utf8), using: key)).base64EncodedString()
    }
}

/// One minted TURN credential, as an `RTCIceServer` takes it (`username`, `credential`).
public struct TURNCredential: Sendable, Equatable {
    public let username: String
    public let password: String
    /// When the TURN server stops accepting it for new allocations, in Unix seconds.
    public let expiresAt: Int64
}
