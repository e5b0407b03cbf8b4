/// An ICE username fragment and password (RFC 8445 §5.3): ufrag ≥ 4 and pwd ≥ 22 characters
/// of `ice-char` (letters, digits, `+`, `/`).
public struct ICECredentials: Hashable, Sendable {
    public var ufrag: String
    public var pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// Fresh credentials: 8 and 24 characters, 48 and 144 bits of randomness.
    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        }
        return ICECredentials(ufrag: text(8), pwd: text(24))
    }

    /// The MESSAGE-INTEGRITY key for short-term credentials: the password's UTF-8 bytes
    /// (RFC 8445 §7.2.2; SASLprep changes nothing for `ice-char`).
    var integrityKey: [UInt8] { Array(pwd.utf8) }
}

/// Candidate priorities (RFC 8445 §5.1.2.1): type preference, local preference, component 1.
public enum ICEPriority {
    public static func of(typePreference: UInt32, localPreference: UInt32 = 65535) -> UInt32 {
        typePreference << 24 | (localPreference & 0xFFFF) << 8 | 255
    }

    /// The server's one host candidate.
    public static let host = of(typePreference: 126)
    /// What a check advertises for the peer-reflexive candidate it may discover.
    public static let peerReflexive = of(typePreference: 110)
}
