import Caucus
import Foundation

/// Carries out the lines typed into `caucus client`: finds the command, runs it, and prints
/// `ok` or `error <code> <name>: <message>` (code 0: refused by the client itself).
struct ClientShell: Sendable {
    let session: CaucusSession
    let console: Console

    /// One command: its usage (`dm USER TEXT`), what it does, and how.
    struct Verb: Sendable {
        let usage: String
        let summary: String
        /// Leaving: the client exits once it has run.
        var ends = false
        let run: @Sendable (ClientShell, inout ClientArguments) async throws -> Void

        /// The words that name it: one, or two for `plan add` and the like.
        var name: String {
            let words = usage.split(separator: " ")
            return words.count > 1 && words[0] == "plan" ? "plan \(words[1])" : String(words[0])
        }
    }

    /// Every command, in the order `help` lists them.
    static let verbs: [Verb] = sessionVerbs + planVerbs + managerVerbs + roomVerbs

    /// Runs one line; false when the client should exit.
    func execute(_ line: String) async -> Bool {
        var words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return true }
        var name = words.removeFirst().lowercased()
        if name == "plan" { name += " " + (words.isEmpty ? "show" : words.removeFirst().lowercased()) }
        let verb = Self.verbs.first { $0.name == name }
        guard let verb else {
            report(ClientError(name: "unknownCommand", message: "no command \"\(line.trimmingCharacters(in: .whitespaces))\" (type `help`)"))
            return true
        }
        var arguments = ClientArguments(words, usage: verb.usage)
        do {
            try await verb.run(self, &arguments)
            console.print("ok")
        } catch {
            report(error)
            return true
        }
        return !verb.ends
    }

    private func report(_ error: any Error) {
        switch error {
        case let error as ClientError: console.print("error 0 \(error.name): \(error.message)")
        case let error as SessionError:
            if let refusal = error.serverError {
                console.print("error \(refusal.code) \(refusal.name): \(refusal.message)")
            } else {
                console.print("error 0 \(Self.name(of: error)): \(error.description)")
            }
        default: console.print("error 0 failed: \(error)")
        }
    }

    private static func name(of error: SessionError) -> String {
        switch error {
        case .refused: "refused"
        case .notJoined: "notJoined"
        case .alreadyJoined: "alreadyJoined"
        case .connectionFailed: "connectionFailed"
        case .tlsFailed: "tlsFailed"
        case .connectionLost: "connectionLost"
        case .timedOut: "timedOut"
        case .invalidRequest: "invalidRequest"
        case .invalidResponse: "invalidResponse"
        case .media: "media"
        }
    }

    // MARK: - What commands need

    var snapshot: CaucusSession.Snapshot {
        get throws(ClientError) {
            guard let snapshot = session.snapshot else { throw .notJoined }
            return snapshot
        }
    }

    var manager: SubsessionManager {
        get throws(ClientError) {
            guard let manager = session.subsessionManager else { throw .notManaging }
            return manager
        }
    }

    /// The planning helper, which the session hands only to the host and managers.
    var helper: SubsessionHelper {
        get throws(ClientError) {
            guard let helper = session.subsessionHelper else { throw .notPlanning }
            return helper
        }
    }

    var participant: SubsessionParticipant {
        get throws(ClientError) {
            guard let participant = session.subsessionParticipant else { throw .notInSubsession }
            return participant
        }
    }

    func user(_ arguments: inout ClientArguments) throws(ClientError) -> CaucusUser {
        try snapshot.resolveUser(try arguments.word("USER"))
    }

    func room(_ arguments: inout ClientArguments) throws(ClientError) -> SubsessionKit {
        try snapshot.resolveRoom(try arguments.word("ROOM"))
    }

    /// The `help` text: every command with what it does.
    static var helpLines: [String] {
        let width = verbs.map(\.usage.count).max() ?? 0
        return ["commands (users and rooms by name or id):"]
            + verbs.map { "  " + $0.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
    }
}
