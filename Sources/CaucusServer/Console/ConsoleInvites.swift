import CaucusAuth
import CaucusCore
import Foundation

/// The console's invite codes on the development app: a host code and a participant code per
/// new session, each naming its role. A page exchanges its code for a join token of that role
/// and no other, so the role comes from the link, never from a choice on the page, and the
/// app's secret stays on the server.
///
/// A code is an HS256 JWT (the join token's shape) signed with a key derived from the
/// development app's secret, not the secret itself: it proves the server made it, survives a
/// restart with nothing stored, and is never a join token in itself.
enum ConsoleInvites {
    /// Codes live as long as a token may (48 hours).
    static let lifetimeSeconds = 48 * 3600

    static func signingApp(for app: AppCredentials) -> AppCredentials {
        AppCredentials(key: app.key, secret: "caucus-console-invite:" + app.secret, limits: app.limits)
    }

    static func code(for session: String, role: RoleClaim, app: AppCredentials, at now: Instant) throws(CaucusError) -> String {
        do {
            return try TokenMinter.mint(
                app: signingApp(for: app), sessionName: session, role: role, issuedAt: now, lifetimeSeconds: lifetimeSeconds)
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not make an invite code: \(error)")
        }
    }

    /// The role a code grants for `session`; 1020 `inviteInvalid` for anything else.
    static func role(of code: String, session: String, app: AppCredentials, at now: Instant) throws(CaucusError) -> RoleClaim {
        do {
            return try TokenVerifier(apps: [signingApp(for: app)]).verify(code, sessionName: session, now: now).role
        } catch {
            throw CaucusError(.inviteInvalid, "This invite link is not valid for \(session) (\(error.message)): ask the host for a new one.")
        }
    }
}

/// `POST /console/dev/session`: a new session's name.
struct ConsoleSessionRequest: ConsoleRequest {
    static let shape = #"{"session": "…"}"#
    let session: String
}

/// `POST /console/dev/session`'s answer: the two links' codes.
struct ConsoleSessionInvites: Encodable, Sendable {
    let session: String
    let hostInvite: String
    let participantInvite: String
}

/// `POST /console/dev/token`: an invite code and the session it is for; for a personal link,
/// the name it was made for and the asking browser's own random id. Nothing else: the role is
/// the code's.
struct ConsoleTokenRequest: ConsoleRequest {
    static let shape = #"{"session": "…", "invite": "…"} (the invite code of a console link)"#
    let session: String
    let invite: String
    /// A personal link's name (the link carries it; the code verifies only with it).
    let name: String?
    /// A personal link: the browser's id, so that the same browser asking twice (a password
    /// retried) is not taken for a second one.
    let browser: String?
}

/// `POST /console/dev/token`'s answer: a two-hour join token of the code's role, and for a
/// personal link the name to join with.
struct ConsoleToken: Encodable, Sendable {
    let token: String
    let role: String
    var name: String?
}

/// `GET /console/dev`: whether the development helpers are on, and the public URL
/// (`--public-url`) the links handed to others name, when the server has one.
struct DevelopmentStatus: Encodable, Sendable {
    let development: Bool
    var publicURL: String?
}
