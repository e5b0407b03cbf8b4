import ArgumentParser
import CaucusCore
import CaucusStore
import CaucusStorePostgres
import Foundation
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What leases cost the database while nothing happens: `nodes` `caucus serve` processes on
/// one PostgreSQL database, `sessions` sessions of one idle user each, opened round-robin
/// across the nodes; then `seconds` of idleness. Reports the database's committed
/// transactions per second (`pg_stat_database.xact_commit`, every client of the database:
/// the nodes' lease renewals, sweeps and pool keep-alives, and this bench's few reads), per
/// node, and how many sessions changed owner or epoch meanwhile (none should).
struct LeaseBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leases", abstract: "Idle sessions on several nodes: the database's load, and sessions that moved.")

    @Option(help: "The PostgreSQL database the nodes share (postgres://user@host:port/database), with no live session.")
    var store: String
    @Option(help: "Nodes (caucus serve processes).") var nodes = 3
    @Option(help: "Idle sessions, one user each, spread round-robin over the nodes.") var sessions = 10_000
    @Option(help: "Seconds of idleness measured.") var seconds = 60
    @Option(help: "Seconds a node's lease lasts unrenewed (renewed every third of it).") var leaseSeconds = 10
    @Option(help: "Event-loop threads for the simulated users.") var clientThreads = 1
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        guard nodes > 0, sessions > 0, seconds > 0 else { throw ValidationError("--nodes, --sessions and --seconds must be positive.") }
        let folder = try ServerUnderTest.freshFolder()
        // Runs last, after every node has stopped (defers run in reverse).
        defer { ServerUnderTest.removeFolder(folder) }
        let ports = try FreeLoopbackPorts.take(nodes)
        let servers = try ports.map { port in
            try ServerUnderTest(
                folder: folder,
                arguments: ["--store", store, "--port", "\(port)", "--node-url", "http://127.0.0.1:\(port)", "--lease-seconds", "\(leaseSeconds)"])
        }
        defer { servers.forEach { $0.stop() } }
        let database = PostgresSessionStore(location: try PostgresStoreLocation(url: store))
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        try await database.prepare()

        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let tag = UUID().uuidString.prefix(8)
        let opening = ContinuousClock.now
        var users: [BenchUser] = []
        for (index, server) in servers.enumerated() {
            let count = sessions / nodes + (index < sessions % nodes ? 1 : 0)
            users += try await joinUsers(count, server: server, group: group, session: { "Idle \(tag) \(index)-\($0)" })
        }
        let opened = ContinuousClock.now - opening

        // The joins' own transactions are counted by PostgreSQL up to ten seconds late
        // (a backend reports when it goes idle): wait that out before the first reading.
        try await Task.sleep(for: .seconds(12))
        let before = try await Reading.take(database, servers: servers)
        let started = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        let after = try await Reading.take(database, servers: servers)
        let elapsed = Double((ContinuousClock.now - started).milliseconds) / 1000

        let transactions = Double(after.transactions - before.transactions) / elapsed
        let moved = before.owners.filter { after.owners[$0.key] != $0.value }.count
        let renewals = zip(before.renewals, after.renewals).map { Double($1 - $0) / elapsed }
        let closed = users.filter(\.isClosed).count
        var report = Report(scenario: "leases")
        report.add("nodes, sessions", "\(nodes) nodes, \(sessions) idle sessions of one user (opened in \((opened.milliseconds / 1000).formatted(decimals: 1)) s)")
        report.add("lease", "\(leaseSeconds) s, renewed every \((Double(leaseSeconds) / 3).formatted(decimals: 1)) s")
        report.add("measured", "\(elapsed.formatted(decimals: 1)) s")
        report.add("database transactions/s (all nodes)", transactions.formatted(decimals: 2))
        report.add("database transactions/s per node", (transactions / Double(nodes)).formatted(decimals: 2))
        report.add("node lease renewals/s per node", renewals.map { $0.formatted(decimals: 2) }.joined(separator: ", "))
        report.add("sessions live at start, at end", "\(before.owners.count), \(after.owners.count)")
        report.add("sessions that changed owner or epoch", "\(moved)")
        report.add("clients disconnected", "\(closed)")
        report.add("target", "≤ 10 transactions/s per node whatever the sessions; 0 moved")
        report.print(json: json)
        withExtendedLifetime(users) {}
        try? await database.close()
    }

    /// What one moment looks like: the database's committed transactions, each live
    /// session's owner and epoch, and each node's renewal count.
    private struct Reading {
        let transactions: Int64
        let owners: [StoredSessionID: String]
        let renewals: [Int64]

        static func take(_ database: PostgresSessionStore, servers: [ServerUnderTest]) async throws -> Reading {
            let transactions = try await database.committedTransactions()
            let listing = try await database.liveSessionListing(app: ServerUnderTest.benchApp.key)
            var renewals: [Int64] = []
            for server in servers { renewals.append(try await counter("caucus_node_lease_renewals_total", port: server.port)) }
            return Reading(
                transactions: transactions,
                owners: Dictionary(uniqueKeysWithValues: listing.map { ($0.id, "\($0.lease.owner?.description ?? "nobody") \($0.lease.epoch)") }),
                renewals: renewals)
        }

        private static func counter(_ name: String, port: Int) async throws -> Int64 {
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
            return line.flatMap { $0.split(separator: " ").last }.flatMap { Int64($0) } ?? 0
        }
    }
}
