import CaucusStore
import Logging
import NIOSSL
import PostgresNIO

/// The first connection a node makes to its store, before the pool's: the pool retries every
/// failure quietly, so a wrong `--store` (an unknown database or role, a refused password,
/// TLS the server does not offer) would only show as a wait that runs out. Here each attempt's
/// failure is looked at: one that retrying cannot mend ends the start at once with
/// PostgreSQL's own reason; one that can (nothing listens yet, the server is starting up or
/// full) is retried until the deadline.
enum PostgresFirstConnection {
    /// Returns once a connection was made (and closed again); throws `cannotOpen` with the
    /// reason at the first failure that retrying cannot mend, or at `deadline` with the last.
    static func establish(
        _ location: PostgresStoreLocation, deadline: ContinuousClock.Instant, logger: Logger
    ) async throws {
        let configuration = try location.connectionConfiguration(name: "caucus-first")
        var attempt = 0
        var lastFailure = "no attempt finished"
        while ContinuousClock.now < deadline {
            attempt += 1
            let outcome = await connectOnce(configuration, id: attempt, until: deadline, logger: logger)
            switch outcome {
            case .connected:
                return
            case .failed(let error) where !isRetryable(error):
                throw StoreError(.cannotOpen, "PostgreSQL at \(location.description) refused this node: \(reason(error, location))")
            case .failed(let error):
                let failure = reason(error, location)
                // Said once per reason, not once per attempt.
                if failure != lastFailure {
                    logger.notice("no connection to PostgreSQL at \(location.description) yet (\(failure)); retrying until \(PostgresSessionStore.connectionDeadline) have passed")
                }
                lastFailure = failure
            case .timedOut:
                lastFailure = "the connection attempt was not answered"
            }
            // Backs off to a second between attempts: a server starting up is there soon.
            try await Task.sleep(for: min(.milliseconds(100 * attempt), .seconds(1)))
        }
        throw StoreError(.cannotOpen, "No connection to PostgreSQL at \(location.description) within \(PostgresSessionStore.connectionDeadline): \(lastFailure).")
    }

    private enum Outcome: Sendable {
        case connected
        case failed(any Error)
        case timedOut
    }

    /// One attempt, given up at `deadline` (a link that drops packets answers nothing).
    private static func connectOnce(
        _ configuration: PostgresConnection.Configuration, id: Int, until deadline: ContinuousClock.Instant, logger: Logger
    ) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
                    try? await connection.close()
                    return .connected
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
    }

    /// Whether another attempt may succeed without anyone changing the URL or the server's
    /// configuration.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return true }
        switch error.code {
        case .server:
            // SQLSTATE classes 08 (connection exception), 53 (insufficient resources: too many
            // connections) and 57 (operator intervention: starting up, shutting down) pass;
            // 28 (a role or password refused), 3D (no such database) and the rest do not.
            let state = error.serverInfo?[.sqlState] ?? ""
            return ["08", "53", "57"].contains(String(state.prefix(2)))
        case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest, .unsupportedAuthMechanism,
            .authMechanismRequiresPassword, .saslError:
            return false
        default:
            // Refused or reset connections, a server that closed on us: it may be coming up.
            return true
        }
    }

    /// PostgreSQL's own words for a failure, or what the client saw.
    static func reason(_ error: any Error, _ location: PostgresStoreLocation) -> String {
        if let error = error as? PSQLError {
            switch error.code {
            case .sslUnsupported:
                return "the server does not offer TLS, which sslmode=\(location.sslMode.rawValue) requires (enable ssl on the server, or use sslmode=prefer or disable)"
            case .authMechanismRequiresPassword:
                return "the server asks for a password and the URL gives none (postgres://user:password@host/database)"
            default:
                break
            }
        }
        return PostgresSessionStore.describe(error)
    }
}

extension PostgresStoreLocation {
    /// The settings of one connection, as the pool's (`clientConfiguration`) make each of its own;
    /// `name` becomes its `application_name`, which `pg_stat_activity` shows.
    func connectionConfiguration(name: String) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.additionalStartupParameters = [("application_name", name)]
        return configuration
    }
}
