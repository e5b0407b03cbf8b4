import ArgumentParser
import CaucusAuth
import CaucusCore
import Foundation

/// `caucus token`: mints a join token, by default for the development app `caucus serve` creates.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint a join token (an HS256 JWT with the Zoom Video SDK payload) and print it.",
        discussion: """
            Signs with --app-key and --app-secret when given, else with the development app \
            that `caucus serve` writes to <data>/\(AppCredentials.developmentFileName) on first start.
            """)

    enum Role: String, ExpressibleByArgument, CaseIterable {
        case host, participant

        var claim: RoleClaim { self == .host ? .host : .participant }
    }

    @Option(help: "The session the token admits to (its tpc claim).") var session: String
    @Option(help: "The role the token grants.") var role: Role = .participant
    @Option(help: "The user_identity claim (at most 35 characters).") var userIdentity: String?
    @Option(help: "The session_key claim (at most 36 characters).") var sessionKey: String?
    @Option(help: "Seconds until the token expires (at most 48 hours).") var ttl: Int = 7200
    @Option(help: "The app key to sign for (with --app-secret).") var appKey: String?
    @Option(help: "The app secret to sign with (with --app-key).") var appSecret: String?
    @Option(help: "The server's data directory, where the development app is kept.") var data = "./caucus-data"

    func validate() throws {
        guard (appKey == nil) == (appSecret == nil) else {
            throw ValidationError("--app-key and --app-secret go together: give both, or neither to use the development app.")
        }
    }

    func run() throws {
        let app = try credentials()
        let now = Instant(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        do {
            print(
                try TokenMinter.mint(
                    app: app, sessionName: session, role: role.claim, issuedAt: now, lifetimeSeconds: ttl,
                    userIdentity: userIdentity, sessionKey: sessionKey))
        } catch let error as CaucusError {
            throw Failure(description: error.message)
        }
    }

    private func credentials() throws -> AppCredentials {
        if let appKey, let appSecret { return AppCredentials(key: appKey, secret: appSecret) }
        return try DevelopmentApp.load(data: data)
    }

    /// A failure at run time: reported without the usage text, which would not help.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
