import Logging
import SQLiteNIO

/// Copies the write-ahead log into the database file from a connection of its own, off the
/// writer's path. Left to itself SQLite checkpoints inside whichever commit crosses 1,000 WAL
/// pages, and that commit (and every command waiting behind it) then waits for the copy and
/// its `fsync`: milliseconds, a few times a second under load. Here the writer never
/// checkpoints (`wal_autocheckpoint = 0`), and this runs a PASSIVE checkpoint, which never
/// blocks the writer, every interval.
actor WALCheckpointer {
    private let connection: SQLiteConnection
    private let logger: Logger
    private var loop: Task<Void, Never>?
    /// Checkpoints run so far (tests).
    private(set) var completed = 0

    static func start(path: String, every interval: Duration, logger: Logger) async throws -> WALCheckpointer {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await connection.query("PRAGMA busy_timeout = 10000")
        let checkpointer = WALCheckpointer(connection: connection, logger: logger)
        await checkpointer.run(every: interval)
        return checkpointer
    }

    private init(connection: SQLiteConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    deinit {
        // As the store does: sqlite-nio asserts that a connection is closed before it is freed.
        if !connection.isClosed { connection.close().whenComplete { _ in } }
    }

    private func run(every interval: Duration) {
        loop = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.checkpoint()
            }
        }
    }

    /// One PASSIVE checkpoint: as much of the WAL as no reader still needs.
    func checkpoint() async {
        do {
            _ = try await connection.query("PRAGMA wal_checkpoint(PASSIVE)")
            completed += 1
        } catch {
            logger.warning("WAL checkpoint failed", metadata: ["error": "\(error)"])
        }
    }

    /// Stops the loop and closes the connection (the writer's close checkpoints the rest).
    func stop() async {
        loop?.cancel()
        loop = nil
        try? await connection.close()
    }
}
