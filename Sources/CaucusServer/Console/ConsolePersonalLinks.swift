import CaucusAuth
import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// Personal participant links: a participant code bound to one class, to one person's name and
/// to a person id of its own, made by the class's host. Its token carries the person id as its
/// `user_identity`, so the session knows the seat it gave; the page takes the name from the
/// exchange's answer and asks for none. One person, one seat: while the person has a seat in
/// the live session (connected or within its reconnect grace), or another browser exchanged the
/// code in the last minute and is on its way in, the code gives no token (2017
/// `personalLinkInUse`). The browser that holds the seat comes back with its resume secret and
/// never needs a token for it.
///
/// The name is bound without storing anything: the code is signed with a key derived from the
/// development app's secret and the name, so a link whose name was changed does not verify.
enum ConsolePersonalLinks {
    /// The `user_identity` of a personal link's person: this prefix and 16 hex digits.
    static let identityPrefix = "console-person-"
    /// How long an exchange keeps the code for its browser while that browser joins.
    static let claimWindowMilliseconds: Int64 = 60_000

    static func signingApp(for app: AppCredentials, name: String) -> AppCredentials {
        // A fixed prefix, the secret and the name after a line feed: two names never share a key.
        AppCredentials(key: app.key, secret: "caucus-console-person:" + app.secret + "\n" + name, limits: app.limits)
    }

    /// A new person's code for class `classID`: its id is new each time, so two links for two
    /// people named alike are two people.
    static func code(for session: String, classID: String, name: String, app: AppCredentials, at now: Instant) throws(CaucusError) -> String {
        try validate(name, limits: app.limits)
        let person = identityPrefix + String(UInt64.random(in: .min ... .max), radix: 16).leftPadded(to: 16)
        do {
            return try TokenMinter.mint(
                app: signingApp(for: app, name: name), sessionName: session, role: .participant, issuedAt: now,
                lifetimeSeconds: ConsoleClassCodes.lifetimeSeconds, userIdentity: person, sessionKey: classID)
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not make a personal link: \(error)")
        }
    }

    /// The person a code names for `session` and `name`, the class it was made for and its app;
    /// 1020 `inviteInvalid` for a code not made for them (another name, another session, a
    /// session-wide code, forged).
    static func person(
        of code: String, session: String, name: String, apps: [AppCredentials], at now: Instant
    ) throws(CaucusError) -> (person: String, classID: String, app: String) {
        let verified: VerifiedToken
        do {
            verified = try TokenVerifier(apps: apps.map { signingApp(for: $0, name: name) }).verify(code, sessionName: session, now: now)
        } catch {
            throw CaucusError(.inviteInvalid, "This personal link is not valid for \(name) in \(session) (\(error.message)): ask the host for a new one.")
        }
        guard verified.role == .participant, let person = verified.userIdentity, person.hasPrefix(identityPrefix),
            let classID = verified.sessionKey, ConsoleClassCodes.isClassID(classID)
        else {
            throw CaucusError(.inviteInvalid, "This personal link is not valid for \(name) in \(session): ask the host for a new one.")
        }
        return (person, classID, verified.appKey)
    }

    /// A name the session would take: visible, allowed characters, not too long.
    static func validate(_ name: String, limits: SessionLimits) throws(CaucusError) {
        switch NameRule.check(name) {
        case .acceptable: break
        case .noVisibleCharacter: throw CaucusError(.userNameEmpty, "Type the person's name.")
        case .forbidden(let scalar):
            throw CaucusError(.nameCharacterForbidden, "The name holds a character names may not hold (\(NameRule.describe(scalar))).")
        }
        guard name.unicodeScalars.count <= limits.maxUserNameLength else {
            throw CaucusError(.userNameTooLong, "The name is longer than \(limits.maxUserNameLength) characters.")
        }
    }
}

/// Which browser last exchanged each personal code, and when: a second browser is turned away
/// while the first is on its way into the session (after which its seat speaks for it).
final class ConsolePersonalClaims: Sendable {
    private struct Claim {
        let browser: String
        let at: Instant
    }

    private let claims = NIOLockedValueBox<[String: Claim]>([:])

    /// Claims `person` for `browser`; false when another browser claimed it within the window.
    func claim(_ person: String, by browser: String, at now: Instant) -> Bool {
        claims.withLockedValue { claims in
            claims = claims.filter { now.milliseconds - $0.value.at.milliseconds < ConsolePersonalLinks.claimWindowMilliseconds }
            if let held = claims[person], held.browser != browser { return false }
            claims[person] = Claim(browser: browser, at: now)
            return true
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// `POST /console/dev/person`: the host's code, and the person's name.
struct ConsolePersonRequest: ConsoleRequest {
    static let shape = #"{"session": "…", "invite": "…", "name": "…"} (the invite code of the host link, and the person's name)"#
    let session: String
    let invite: String
    let name: String
}

/// `POST /console/dev/person`'s answer: the person's code.
struct ConsolePersonInvite: Encodable, Sendable {
    let session: String
    let name: String
    let invite: String
}
