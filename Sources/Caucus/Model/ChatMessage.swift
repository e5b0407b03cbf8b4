import CaucusCore
import Foundation

/// A chat message: to everyone in a room (the main session or a subsession), or to one user.
public struct ChatMessage: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Who a message is for.
    public enum Scope: Sendable, Hashable {
        /// Everyone in that room when it was sent.
        case room(CaucusLocation)
        /// One user, wherever they are.
        case direct(to: UserID)
    }

    /// The session's number for the message, in the order the server stored them.
    public let id: MessageID
    /// Who sent it.
    public let from: UserID
    /// Who it was for.
    public let scope: Scope
    /// What was written.
    public let text: String
    /// When the server stored it.
    public let sentAt: Date

    /// A message, for previews and tests; the session makes the real ones.
    public init(id: MessageID, from: UserID, scope: Scope, text: String, sentAt: Date) {
        self.id = id
        self.from = from
        self.scope = scope
        self.text = text
        self.sentAt = sentAt
    }

    init(_ message: CaucusCore.ChatMessage) {
        let scope: Scope =
            switch message.scope {
            case .room(let location): .room(location)
            case .direct(let user): .direct(to: user)
            }
        self.init(id: message.id, from: message.from, scope: scope, text: message.text, sentAt: Date(message.sentAt))
    }

    /// Sent to one user rather than to a room.
    public var isDirect: Bool {
        if case .direct = scope { return true }
        return false
    }

    public var description: String { "\(from): \(text)" }
}
