import Caucus
import CaucusCore

/// A command's words after its name, taken one by one; text arguments take the rest of the line.
struct ClientArguments {
    private var words: [String]
    /// The command's usage, for the error a missing or extra word gets.
    let usage: String

    init(_ words: [String], usage: String) {
        self.words = words
        self.usage = usage
    }

    var isEmpty: Bool { words.isEmpty }

    /// The next word; `what` names it in the error if there is none.
    mutating func word(_ what: String) throws(ClientError) -> String {
        guard !words.isEmpty else { throw .usage("missing \(what): \(usage)") }
        return words.removeFirst()
    }

    mutating func optionalWord() -> String? { words.isEmpty ? nil : words.removeFirst() }

    /// Every word left, at least one.
    mutating func list(_ what: String) throws(ClientError) -> [String] {
        guard !words.isEmpty else { throw .usage("missing \(what): \(usage)") }
        defer { words = [] }
        return words
    }

    /// The rest of the line, as text (words joined by single spaces).
    mutating func text(_ what: String) throws(ClientError) -> String { try list(what).joined(separator: " ") }

    mutating func integer(_ what: String) throws(ClientError) -> Int {
        let word = try word(what)
        guard let value = Int(word) else { throw .usage("\(what) must be a whole number, not \"\(word)\": \(usage)") }
        return value
    }

    mutating func optionalInteger(_ what: String) throws(ClientError) -> Int? {
        words.isEmpty ? nil : try integer(what)
    }

    /// Takes `flag` wherever it is among the words left; true if it was there.
    mutating func flag(_ flag: String) -> Bool {
        guard let index = words.firstIndex(of: flag) else { return false }
        words.remove(at: index)
        return true
    }

    /// Takes `option` and the whole number after it, wherever they are.
    mutating func option(_ option: String) throws(ClientError) -> Int? {
        guard let index = words.firstIndex(of: option) else { return nil }
        guard index + 1 < words.count, let value = Int(words[index + 1]) else {
            throw .usage("\(option) needs a whole number: \(usage)")
        }
        words.removeSubrange(index...index + 1)
        return value
    }

    /// Refuses words nobody took.
    func end() throws(ClientError) {
        guard words.isEmpty else { throw .usage("unexpected \"\(words.joined(separator: " "))\": \(usage)") }
    }
}

/// A command the client refused itself, before asking the server. Printed as
/// `error 0 <name>: <message>`: code 0 is the client's, the server's codes start at 1000.
struct ClientError: Error {
    let name: String
    let message: String

    static func usage(_ message: String) -> ClientError { ClientError(name: "usage", message: message) }
    static func unknownUser(_ word: String) -> ClientError {
        ClientError(name: "unknownUser", message: "no user \"\(word)\" here (see `users`)")
    }
    static func unknownRoom(_ word: String) -> ClientError {
        ClientError(name: "unknownRoom", message: "no subsession \"\(word)\" (see `rooms`)")
    }
    static let notManaging = ClientError(name: "notManaging", message: "only the host and managers can do this")
    static let notPlanning = ClientError(name: "notPlanning", message: "only the host plans subsessions")
    static let notInSubsession = ClientError(name: "notInSubsession", message: "you are in the main session")
    static let notJoined = ClientError(name: "notJoined", message: "not in a session")
}

extension CaucusSession.Snapshot {
    /// A user by id (`u3` or `3`) or by name (exact, else ignoring case); users who left too, by id.
    func resolveUser(_ word: String) throws(ClientError) -> CaucusUser {
        if let raw = Self.number(word, prefix: UserID.self), let user = user(UserID(raw)) { return user }
        if let user = user(named: word) ?? users.first(where: { $0.name.lowercased() == word.lowercased() }) { return user }
        throw .unknownUser(word)
    }

    /// A subsession of the committed list by id (`r2` or `2`) or by name (exact, else ignoring case).
    func resolveRoom(_ word: String) throws(ClientError) -> SubsessionKit {
        if let raw = Self.number(word, prefix: RoomID.self), let room = subsession(RoomID(raw)) { return room }
        if let room = subsession(named: word) ?? subsessions.first(where: { $0.name.lowercased() == word.lowercased() }) {
            return room
        }
        throw .unknownRoom(word)
    }

    /// `u3`, `r3`, `h3` or plain `3`, for identifiers of that kind.
    static func number<Kind>(_ word: String, prefix: Identifier<Kind>.Type) -> Int? {
        let prefix = Kind.prefix
        return Int(word.lowercased().hasPrefix(prefix) ? String(word.dropFirst(prefix.count)) : word)
    }
}
