import CaucusCore

/// Why the store refused or failed an operation. Every error a store throws is one of these,
/// so callers can tell a caller bug (`duplicateSeq`, `unknownSession`) from a broken database.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable, Hashable {
        /// A seq that is already in the session's log.
        case duplicateSeq
        /// A batch that is not contiguous and increasing, or leaves a gap after the log's end.
        case outOfOrder
        case unknownSession
        /// An append after the session's log already ended with sessionEnded.
        case sessionEnded
        /// A stored event body that no longer decodes as an `Event`.
        case undecodableEvent
        /// An event that JSONEncoder refused (never expected from the core's events).
        case unencodableEvent
        /// A row whose columns are not what the schema promises.
        case corruptRow
        /// A session's first append named a session that is live already (same app, same name
        /// key): the database keeps one live session per name, whichever node asks.
        case liveNameTaken
        /// A write that carries a lease epoch that is not the session's current one (or none
        /// once a lease exists): another node took the session over. Or a node's renewal at an
        /// epoch that is not its lease's: another run of the node started since. Nothing was
        /// written.
        case fenced
        /// Another node holds the session's lease and it has not expired.
        case leaseHeld
        /// The database was written by a newer version of the store.
        case unsupportedSchema
        case closed
        /// The file or its folder could not be created or opened.
        case cannotOpen
        /// The database itself failed (I/O, locking, a lost connection, constraints the store
        /// does not pre-check).
        case database
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension StoreError {
    public static func duplicateSeq(_ seq: Int, in session: StoredSessionID, last: Int) -> StoreError {
        StoreError(.duplicateSeq, "Session \(session) already has event \(seq) (its log ends at \(last)).")
    }

    public static func gap(expected: Int, got seq: Int, in session: StoredSessionID) -> StoreError {
        StoreError(.outOfOrder, "Session \(session) expects event \(expected) next, not \(seq).")
    }

    public static func unknownSession(_ session: StoredSessionID) -> StoreError {
        StoreError(.unknownSession, "No session \(session) in the store.")
    }

    public static func ended(_ session: StoredSessionID) -> StoreError {
        StoreError(.sessionEnded, "Session \(session) has ended; its log takes no more events.")
    }

    public static func undecodable(_ seq: Int, in session: StoredSessionID, _ error: any Error) -> StoreError {
        StoreError(.undecodableEvent, "Event \(seq) of session \(session) does not decode: \(error)")
    }

    public static func liveNameTaken(_ opening: SessionOpening) -> StoreError {
        StoreError(.liveNameTaken, "App \(opening.app) already has a live session named \(opening.name).")
    }

    public static func fenced(_ session: StoredSessionID, claimed: LeaseEpoch?, current: SessionLease) -> StoreError {
        StoreError(
            .fenced,
            "Session \(session) is leased at \(current.epoch) (held by \(current.holder?.description ?? "nobody")), not \(claimed?.description ?? "unleased"): nothing was written.")
    }

    public static func leaseHeld(_ session: StoredSessionID, by lease: SessionLease, until: Instant?) -> StoreError {
        StoreError(
            .leaseHeld,
            "Session \(session) is leased by \(lease.owner?.description ?? "nobody") at \(lease.epoch) until \(until?.description ?? "never").")
    }

    /// A node's renewal (or the run behind it) that another run of the same node overtook.
    public static func nodeFenced(_ node: NodeID, claimed: NodeEpoch, current: NodeLease) -> StoreError {
        StoreError(
            .fenced,
            "Node \(node)'s lease is at \(current.epoch), not \(claimed): another process of this node started since, and owns its sessions.")
    }

    public static func database(_ error: any Error) -> StoreError {
        error as? StoreError ?? StoreError(.database, "\(error)")
    }
}
