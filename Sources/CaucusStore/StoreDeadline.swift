/// How long a caller will wait for the store: a shared store (PostgreSQL) that has not
/// answered a call by then gives it up and throws, whatever it was waiting for (a connection,
/// or the answer to a query sent on a link that went silent). Several nodes bound their waits
/// by their leases' clock this way (`LeasedSessionRouter`, `LeaseKeeper`): an answer that comes
/// after the node must have given its sessions up is of no use to it. A store's own bound
/// applies too, whichever comes first; a local store (SQLite) has no network to wait for and
/// ignores it.
public enum StoreDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `body` with store calls bounded by `deadline` (and by any earlier deadline
    /// already in force).
    public static func bounded<T>(
        by deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        let earliest = current.map { min($0, deadline) } ?? deadline
        return try await $current.withValue(earliest, operation: body)
    }

    /// Runs `body` with no deadline in force. A task made inside it inherits none: for the
    /// tasks a session keeps (its timer, its store writes) that outlive the request that
    /// happened to make them. Without it, a session rebuilt by a request bounded by a lease's
    /// horizon kept that deadline in its timer task, and every store write a timer made after
    /// the horizon failed at once, closing everyone with 4006.
    public static func unbounded<T>(_ body: () throws -> T) rethrows -> T {
        try $current.withValue(nil, operation: body)
    }
}
