// jwt-kit only signs and verifies through its `JWTKeyCollection` actor, that is asynchronously,
// and the verifier runs synchronously on every join; so HS256 is computed here with
// swift-crypto, the library jwt-kit itself uses for it.
internal import Crypto

/// An app secret ready to sign or check HS256 (HMAC-SHA256) signatures.
struct HS256Key: Sendable {
    private let key: SymmetricKey

    init(secret: String) {
        key = SymmetricKey(data: Array(secret.utf8))
    }

    func signature(for signingInput: ArraySlice<UInt8>) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: signingInput, using: key))
    }

    /// Compares in constant time, so the time taken reveals nothing about the right signature.
    func isValid(signature: [UInt8], for signingInput: ArraySlice<UInt8>) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
    }
}
