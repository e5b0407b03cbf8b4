import CaucusStore
import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL store is, from a URL: `postgres://user[:password]@host[:port]/database`,
/// with an optional `?sslmode=disable|prefer|require` (libpq's names; `prefer` by default).
public struct PostgresStoreLocation: Sendable, Hashable {
    public let host: String
    public let port: Int
    public let username: String
    public let password: String?
    public let database: String
    public let sslMode: SSLMode

    public enum SSLMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    /// Whether `text` names a PostgreSQL store (else it is not a URL this type reads).
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(url text: String) throws(StoreError) {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text), let host = components.host, !host.isEmpty
        else { throw StoreError(.cannotOpen, "Not a PostgreSQL URL (postgres://user@host:port/database): \(text)") }
        guard let user = components.user, !user.isEmpty else {
            throw StoreError(.cannotOpen, "The PostgreSQL URL names no user: \(Self.redacted(text))")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw StoreError(.cannotOpen, "The PostgreSQL URL names no database: \(Self.redacted(text))") }
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw StoreError(.cannotOpen, "sslmode must be disable, prefer or require, not \(mode).")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL without its password, for logs and errors.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unreadable URL)"
    }

    /// The pool's settings. `idleInTransaction` becomes the connections'
    /// `idle_in_transaction_session_timeout`: a node whose link went silent in the middle of a
    /// transaction would otherwise leave its rows locked on the server (a takeover of that
    /// session waiting behind them) until the server's TCP gave up on the link, hours later.
    /// `statementTimeout`, when given, becomes `statement_timeout`: PostgreSQL itself ends a
    /// statement that runs longer (waiting for a row lock, say), and the connection stays.
    /// `name` becomes `application_name`, which `pg_stat_activity` shows.
    func clientConfiguration(idleInTransaction: Duration, statementTimeout: Duration? = nil, name: String) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        var parameters = [("idle_in_transaction_session_timeout", "\(Self.milliseconds(idleInTransaction))"), ("application_name", name)]
        if let statementTimeout { parameters.append(("statement_timeout", "\(Self.milliseconds(statementTimeout))")) }
        configuration.options.additionalStartupParameters = parameters
        return configuration
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
