import CaucusCore

/// The console's class book in the session store (`ConsoleClassRecord`): one table that every
/// node sharing the store reads and writes, each change atomic against every other change of
/// the same classes, whichever node makes it.
public protocol ConsoleClassStore: Sendable {
    /// Class `id` as stored; nil if none.
    func consoleClass(_ id: String) async throws -> ConsoleClassRecord?

    /// Reads class `id` and every class of `app` whose name key (`SessionName.key`) is
    /// `nameKey`, keyed by id; lets `change` change or add records (a record keeps its id,
    /// app, name and creation time: only its state, generation, start and `seenRunning`
    /// change); writes what changed; returns what `change` returned. One transaction, and no
    /// other change of a class of that name, or of class `id`, runs in between, on any node:
    /// what `change` decides from what it read still holds when it is written.
    func changeConsoleClasses<Result: Sendable>(
        id: String, app: String, nameKey: String, _ change: @escaping @Sendable (inout [String: ConsoleClassRecord]) -> Result
    ) async throws -> Result

    /// Forgets the classes made before `cutoff` (milliseconds since 1970): their codes expired.
    func forgetConsoleClasses(createdBefore cutoff: Int64) async throws
}

extension ConsoleClassStore {
    /// The records `change` wrote or added to `before`: what a store writes back. A record
    /// whose identity `change` altered (id, app, name, creation) is not written.
    public static func changedConsoleClasses(
        from before: [String: ConsoleClassRecord], to after: [String: ConsoleClassRecord]
    ) -> [ConsoleClassRecord] {
        after.filter { id, record in
            guard record.id == id else { return false }
            guard let old = before[id] else { return true }
            guard old.app == record.app, old.session == record.session, old.createdAt == record.createdAt else { return false }
            return old != record
        }.values.sorted { $0.id < $1.id }
    }
}
