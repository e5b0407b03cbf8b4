import Foundation

// The console's requests and answers about classes and their links (the codes are
// `ConsoleClassCodes`, what the server remembers of classes `ConsoleClassBook`).

/// `POST /console/class`: a new class's session name.
struct ConsoleSessionRequest: ConsoleRequest {
    static let shape = #"{"session": "…"}"#
    let session: String
}

/// `POST /console/class`'s answer: the new class's id and its two links' codes, given once.
struct ConsoleSessionInvites: Encodable, Sendable {
    let session: String
    let `class`: String
    let hostInvite: String
    let participantInvite: String
}

/// `POST /console/token`: an invite code and the session it is for, and the asking browser's
/// own random id; for a personal link, the name it was made for; for a host link opened
/// while its host is in the class, `takeOver` once the page asked. Nothing else: the role and
/// the class are the code's.
struct ConsoleTokenRequest: ConsoleRequest {
    static let shape = #"{"session": "…", "invite": "…"} (the invite code of a console link)"#
    let session: String
    let invite: String
    /// A personal link's name (the link carries it; the code verifies only with it).
    let name: String?
    /// The browser's id. A personal link: the same browser asking twice (a password retried)
    /// is not taken for a second one. A participant link: the token's identity is made from
    /// it (`ConsoleSeatIdentity`), so that a person the host removed stays out.
    let browser: String?
    /// A host link: take the host seat over from the browser that holds it.
    let takeOver: Bool?
}

/// `POST /console/token`'s answer: a short-lived join token of the code's role, the class it
/// is for, and for a personal link the name to join with.
struct ConsoleToken: Encodable, Sendable {
    let token: String
    let role: String
    let `class`: String
    var name: String?
    /// For the host: the class's participant code, so the host page shows the participant link
    /// in any browser.
    var participantInvite: String?
}

/// `POST /console/host-link`: the host link's current code, to be replaced.
struct ConsoleHostLinkRequest: ConsoleRequest {
    static let shape = #"{"session": "…", "invite": "…"} (the invite code of the host link)"#
    let session: String
    let invite: String
}

/// `POST /console/host-link`'s answer: the new host link's code (the old one is refused from now).
struct ConsoleHostLink: Encodable, Sendable {
    let session: String
    let `class`: String
    let hostInvite: String
}

/// `GET /console/dev`: whether the development helpers are on, and the public URL
/// (`--public-url`) the links handed to others name, when the server has one.
struct DevelopmentStatus: Encodable, Sendable {
    let development: Bool
    var publicURL: String?
}
