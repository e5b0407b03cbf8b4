import CaucusAuth
import CaucusCore

/// The codes in the console's class links. A class is one run of a session (one session
/// instance), named by an id of its own: 128 random bits, unguessable. Its host and
/// participant codes name the session, the role and the class (the JWT's `session_key`), and a
/// host code also the host link's generation (its `user_identity`, `host-N`), which the host
/// raises to replace the link. So a code opens only the class it was made for, never another
/// class that takes the same name later, and a replaced host link is refused at once.
///
/// A code is an HS256 JWT (the join token's shape) signed with a key derived from the app's
/// secret, not the secret itself: it proves the app's owner made it (the server, or `caucus
/// link` with the apps file), and is never a join token in itself. The server keeps what a
/// code cannot say (whether the class has ended, the host link's current generation) in
/// `ConsoleClassBook`; the session a class runs as carries the class id as its `session_key`.
public enum ConsoleClassCodes {
    /// Codes live as long as a token may (48 hours).
    public static let lifetimeSeconds = 48 * 3600
    /// The `user_identity` of a class's host: this prefix and the class id's first 16 hex digits.
    public static let hostIdentityPrefix = "console-host-"
    static let hostGenerationPrefix = "host-"

    /// A new class id: 32 lowercase hex digits (fits `session_key`, at most 36).
    public static func newClassID() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (part: UInt64) in
            let digits = String(part, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    public static func isClassID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The identity a class's host joins with: the same for every host link of the class, so
    /// that the host arriving from another browser takes the one host seat over.
    public static func hostIdentity(of classID: String) -> String {
        hostIdentityPrefix + classID.prefix(16)
    }

    static func signingApp(for app: AppCredentials) -> AppCredentials {
        AppCredentials(key: app.key, secret: "caucus-console-class:" + app.secret, limits: app.limits)
    }

    /// A code for `role` in class `classID` of `session`; a host code for the host link's
    /// `generation`. It lives ``lifetimeSeconds`` unless told less (a replaced host link's
    /// successor ends with its class's record: `ConsoleClassBook.hostCodeLifetime`).
    public static func code(
        session: String, classID: String, role: RoleClaim, generation: Int = 0, app: AppCredentials, at now: Instant,
        lifetimeSeconds: Int = ConsoleClassCodes.lifetimeSeconds
    ) throws(CaucusError) -> String {
        do {
            return try TokenMinter.mint(
                app: signingApp(for: app), sessionName: session, role: role, issuedAt: now, lifetimeSeconds: lifetimeSeconds,
                userIdentity: role == .host ? hostGenerationPrefix + String(generation) : nil, sessionKey: classID)
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not make an invite code: \(error)")
        }
    }

    /// What a verified code says.
    public struct Verified: Sendable, Equatable {
        public let app: String
        public let classID: String
        public let role: RoleClaim
        /// A host code's generation; nil for a participant code.
        public let generation: Int?
    }

    /// Verifies a code for `session` against any of `apps`; 1020 `inviteInvalid` for a code none
    /// of them made for that session (forged, expired, a join token, an old-style code).
    public static func verify(_ code: String, session: String, apps: [AppCredentials], at now: Instant) throws(CaucusError) -> Verified {
        let verified: VerifiedToken
        do {
            verified = try TokenVerifier(apps: apps.map(signingApp(for:))).verify(code, sessionName: session, now: now)
        } catch {
            throw CaucusError(.inviteInvalid, "This invite link is not valid for \(session) (\(error.message)): ask the host for a new one.")
        }
        let invalid = CaucusError(.inviteInvalid, "This invite link is not valid for \(session): ask the host for a new one.")
        guard let classID = verified.sessionKey, isClassID(classID) else { throw invalid }
        switch verified.role {
        case .participant:
            guard verified.userIdentity == nil else { throw invalid }
            return Verified(app: verified.appKey, classID: classID, role: .participant, generation: nil)
        case .host:
            guard let tag = verified.userIdentity, tag.hasPrefix(hostGenerationPrefix),
                let generation = Int(tag.dropFirst(hostGenerationPrefix.count)), generation >= 0
            else { throw invalid }
            return Verified(app: verified.appKey, classID: classID, role: .host, generation: generation)
        }
    }
}
