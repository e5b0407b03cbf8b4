import CaucusAuth
import CaucusCore
import CaucusProtocol
import CaucusStore
import Foundation

/// The TURN servers (coturn with `use-auth-secret`) clients may relay media through, and the
/// secret shared with them (`--turn-url`, `--turn-secret-file`, `--turn-credential-hours`).
/// Every joined user gets the URLs with credentials of its own, minted from the secret and
/// valid for a limited time (`TURNCredentialMinter`); the secret itself never leaves the server.
public struct TURNConfiguration: Sendable {
    /// The URLs, as given, in the order given.
    public let urls: [String]
    /// How long a credential may start new relays.
    public let credentialHours: Int
    private let minter: TURNCredentialMinter

    public static let defaultCredentialHours = 12
    /// A week at most: a credential that outlived its user would let anyone holding it relay.
    public static let credentialHoursAllowed = 1...168
    /// A shared secret longer than this is not one (a file named by mistake).
    static let largestSecretFile = 4096

    /// Checks every URL and the lifetime, then reads the secret: the file's text, without the
    /// spaces and line breaks around it (`openssl rand -hex 32 > secret` ends with one).
    public init(urls: [String], secretFile: String, credentialHours: Int = defaultCredentialHours) throws {
        try Self.check(urls: urls, credentialHours: credentialHours)
        try self.init(urls: urls, secret: try Self.secret(in: secretFile), credentialHours: credentialHours)
    }

    init(urls: [String], secret: String, credentialHours: Int) throws {
        try Self.check(urls: urls, credentialHours: credentialHours)
        self.urls = urls
        self.credentialHours = credentialHours
        self.minter = TURNCredentialMinter(secret: secret, lifetimeSeconds: Int64(credentialHours) * 3600)
    }

    private static func check(urls: [String], credentialHours: Int) throws {
        guard !urls.isEmpty else { throw ServerConfigurationError("--turn-secret-file needs --turn-url: the TURN servers its credentials are for.") }
        for url in urls { _ = try TURNURL(url) }
        guard credentialHoursAllowed.contains(credentialHours) else {
            throw ServerConfigurationError(
                "--turn-credential-hours is \(credentialHoursAllowed.lowerBound) to \(credentialHoursAllowed.upperBound), not \(credentialHours).")
        }
    }

    private static func secret(in file: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.contents(of: file, largest: largestSecretFile)
        } catch {
            throw ServerConfigurationError("--turn-secret-file \(file): \(error.reason) (it holds one line: coturn's static-auth-secret)")
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw ServerConfigurationError("--turn-secret-file \(file): not UTF-8 text (it holds one line: coturn's static-auth-secret)")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else {
            throw ServerConfigurationError("--turn-secret-file \(file): the file is empty: put coturn's static-auth-secret in it")
        }
        guard !secret.contains(where: \.isNewline) else {
            throw ServerConfigurationError("--turn-secret-file \(file): holds more than one line; it holds one: coturn's static-auth-secret")
        }
        return secret
    }

    /// The `iceServers` of one user's join or resume reply: every URL, with credentials named
    /// `<expiry>:<session>.<user>`, so the TURN server's log says whose media it relays.
    func iceServers(session: StoredSessionID, user: UserID, at now: Instant) -> [ICEServer] {
        let credential = minter.credential(for: "\(session.rawValue).\(user.rawValue)", at: now)
        return [ICEServer(urls: urls, username: credential.username, credential: credential.password)]
    }
}
