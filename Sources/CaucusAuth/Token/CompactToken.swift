import CaucusCore

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
        guard let header = JSONFields.parse(headerBytes) else {
            throw Self.malformed("its header is not a JSON object")
        }
        guard let payload = JSONFields.parse(payloadBytes) else {
            throw Self.malformed("its payload is not a JSON object")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = bytes[..<parts[1].endIndex]
    }

    private static func malformed(_ reason: String) -> CaucusError {
        CaucusError(.tokenMalformed, "The token is not a JWT: \(reason).")
    }
}
