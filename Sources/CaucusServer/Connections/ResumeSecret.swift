import CaucusCore
import CaucusStore
import Crypto
import Foundation

/// The secret a client resumes its seat with: `<session>.<user>.<mac>`, where the MAC is
/// HMAC-SHA256 under the server's own key. It needs no storage, so it survives a restart as
/// long as the key (kept in the data folder) does.
struct ResumeSecrets: Sendable {
    private let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    /// Names the key without revealing it: the first 16 bytes of an HMAC under it of a fixed
    /// label, in hex. Nodes of one cluster must sign with one key, and compare these.
    var fingerprint: String {
        HMAC<SHA256>.authenticationCode(for: Data("caucus server key fingerprint".utf8), using: key)
            .prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    func secret(session: StoredSessionID, user: UserID) -> String {
        let subject = "\(session.rawValue).\(user.rawValue)"
        return "\(subject).\(mac(subject))"
    }

    /// The seat a secret names, if the secret is genuine.
    func seat(of secret: String) -> (session: StoredSessionID, user: UserID)? {
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let session = Int64(parts[0]), let user = Int(parts[1]) else { return nil }
        let subject = "\(parts[0]).\(parts[1])"
        guard let given = Data(base64URL: String(parts[2])),
            HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(subject.utf8), using: key)
        else { return nil }
        return (StoredSessionID(rawValue: session), UserID(user))
    }

    private func mac(_ subject: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(subject.utf8), using: key)).base64URLEncoded
    }
}

extension Data {
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    init?(base64URL: String) {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        self.init(base64Encoded: text)
    }
}
