import CaucusAuth
import CaucusCore
import CaucusServer
import Foundation
import Hummingbird
import Logging
import Testing

/// A real server on a free loopback port, with its own temporary data folder.
final class TestServer: Sendable {
    let server: SessionServer
    let port: Int
    let dataDirectory: String
    let app: AppCredentials
    private let task: Task<Void, any Error>

    static func start(
        limits: SessionLimits = .standard, outboundQueueLimit: Int = 1024, maxFrameBytes: Int = 64 * 1024,
        dataDirectory: String? = nil
    ) async throws -> TestServer {
        let folder = dataDirectory ?? Self.temporaryFolder()
        let app = AppCredentials(key: "test-app", secret: "test-secret-\(UUID().uuidString)", limits: limits)
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: folder, apps: [app])
        configuration.outboundQueueLimit = outboundQueueLimit
        configuration.maxFrameBytes = maxFrameBytes
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let server = try await SessionServer.open(configuration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = server.application { port in continuation.yield(port) }
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("server did not start") }
        return TestServer(server: server, port: port, dataDirectory: folder, app: app, task: task)
    }

    private init(server: SessionServer, port: Int, dataDirectory: String, app: AppCredentials, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.dataDirectory = dataDirectory
        self.app = app
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    var webSocketURL: String { "ws://127.0.0.1:\(port)/ws" }

    func token(
        session: String, role: RoleClaim = .participant, issuedAt: Instant? = nil, lifetime: Int = 3600,
        userIdentity: String? = nil, sessionKey: String? = nil
    ) throws -> String {
        try TokenMinter.mint(
            app: app, sessionName: session, role: role, issuedAt: issuedAt ?? Instant.wallClock(), lifetimeSeconds: lifetime,
            userIdentity: userIdentity, sessionKey: sessionKey)
    }

    /// A client that has joined `session`.
    func joined(
        _ userName: String, session: String = "Class", role: RoleClaim = .participant, password: String? = nil
    ) async throws -> TestClient {
        let client = try await TestClient.connect(to: self)
        try await client.join(session: session, userName: userName, token: try token(session: session, role: role), password: password)
        return client
    }

    static func temporaryFolder() -> String {
        let path = NSTemporaryDirectory() + "caucus-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits for `operation`, failing rather than hanging if the server never answers.
func within<T: Sendable>(
    seconds: Double = 10, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TestFailure("timed out waiting for \(what)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
