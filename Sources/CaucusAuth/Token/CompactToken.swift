import CaucusCore
import CaucusJSONSyntax

/// A token split into its three base64url parts, each decoded: the JWS compact serialization.
/// Building one is the "shape" check; nothing here is trusted until the signature is checked.
struct CompactToken {
    let header: JSONFields
    let payload: JSONFields
    let signature: [UInt8]
    /// `header.payload` exactly as received: what the signature covers.
    let signingInput: ArraySlice<UInt8>

    init(_ token: String) throws(CaucusError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= TokenRules.maximumTokenBytes else {
            throw Self.malformed("it is longer than \(TokenRules.maximumTokenBytes) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw Self.malformed("it has \(parts.count) part\(parts.count == 1 ? "" : "s") instead of three")
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else {
            throw Self.malformed("a part is not unpadded base64url")
        }
        header = try Self.object(headerBytes, part: "header")
        payload = try Self.object(payloadBytes, part: "payload")
        self.signature = signature
        signingInput = bytes[..<parts[1].endIndex]
    }

    /// A part must be strict JSON: with a member given twice (`alg`, `exp`, `role_type`, …),
    /// Foundation's decoder keeps the first where PyJWT and most libraries keep the last, so a
    /// token could mean one thing here and another elsewhere. Refused rather than guessed.
    private static func object(_ bytes: [UInt8], part: String) throws(CaucusError) -> JSONFields {
        do {
            try JSONSyntax.validate(bytes)
        } catch {
            if case .duplicateKey(let key) = error.reason { throw malformed("its \(part) has the member \"\(key)\" twice") }
            throw malformed("its \(part) is not strict JSON: \(error)")
        }
        guard let fields = JSONFields.parse(bytes) else { throw malformed("its \(part) is not a JSON object") }
        return fields
    }

    private static func malformed(_ reason: String) -> CaucusError {
        CaucusError(.tokenMalformed, "The token is not a JWT: \(reason).")
    }
}
