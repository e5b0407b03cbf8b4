// Tokens are built here independently of CaucusAuth (Foundation's base64, swift-crypto's HMAC),
// so a bug in the library's encoder or signer cannot hide itself in its own tests.
import Crypto
import Foundation

enum TokenForge {
    enum Digest: String, Sendable, CaseIterable {
        case sha256 = "HS256", sha384 = "HS384", sha512 = "HS512"
    }

    static let standardHeader: [String: JSONValue] = ["alg": "HS256", "typ": "JWT"]

    /// A token with exactly this header and payload, signed with HMAC over `digest`.
    static func token(
        header: [String: JSONValue] = standardHeader, payload: [String: JSONValue],
        secret: String = Fixture.app.secret, digest: Digest = .sha256
    ) -> String {
        let signingInput = encode(json(header)) + "." + encode(json(payload))
        return signingInput + "." + encode(sign(Data(signingInput.utf8), secret: secret, digest: digest))
    }

    /// A token whose parts are the given raw JSON texts and signature bytes.
    static func raw(header: String, payload: String, signature: [UInt8] = []) -> String {
        encode(Data(header.utf8)) + "." + encode(Data(payload.utf8)) + "." + encode(Data(signature))
    }

    /// A correctly signed token whose header and payload are exactly these JSON texts.
    static func signed(header: String, payload: String, secret: String = Fixture.app.secret) -> String {
        let signingInput = encode(Data(header.utf8)) + "." + encode(Data(payload.utf8))
        return signingInput + "." + encode(sign(Data(signingInput.utf8), secret: secret, digest: .sha256))
    }

    static func json(_ object: [String: JSONValue]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding plain JSON values cannot fail.
        return try! encoder.encode(object)
    }

    /// Base64url without padding.
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }

    private static func sign(_ input: Data, secret: String, digest: Digest) -> Data {
        let key = SymmetricKey(data: Data(secret.utf8))
        switch digest {
        case .sha256: return Data(HMAC<SHA256>.authenticationCode(for: input, using: key))
        case .sha384: return Data(HMAC<SHA384>.authenticationCode(for: input, using: key))
        case .sha512: return Data(HMAC<SHA512>.authenticationCode(for: input, using: key))
        }
    }
}
