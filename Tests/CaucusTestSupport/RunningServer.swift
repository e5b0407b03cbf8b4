import CaucusAuth
import CaucusCore
import CaucusServer
import Foundation
import Hummingbird
import Logging

/// A real Caucus server on a free loopback port, in the test process, with its own data
/// folder. Shared by every test target that needs a server.
public final class RunningServer: Sendable {
    public let server: SessionServer
    public let port: Int
    public let dataDirectory: String
    public let apps: [AppCredentials]
    private let task: Task<Void, any Error>

    /// Starts a server for `apps` on `clock`; `configure` adjusts the configuration first.
    public static func start(
        apps: [AppCredentials], dataDirectory: String? = nil, clock: ServerClock = .wall,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> RunningServer {
        let folder = dataDirectory ?? temporaryFolder()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: folder, apps: apps)
        configure(&configuration)
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let server = try await SessionServer.open(configuration, logger: logger, clock: clock)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = server.application { port in continuation.yield(port) }
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the server did not start") }
        return RunningServer(server: server, port: port, dataDirectory: folder, apps: apps, task: task)
    }

    private init(server: SessionServer, port: Int, dataDirectory: String, apps: [AppCredentials], task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.dataDirectory = dataDirectory
        self.apps = apps
        self.task = task
    }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
        await server.closeMedia()
    }

    public var webSocketURL: String { "ws://127.0.0.1:\(port)/ws" }

    /// A token of `app` (the first app by default) for `session`.
    public func token(
        session: String, role: RoleClaim = .participant, app: AppCredentials? = nil, issuedAt: Instant? = nil,
        lifetime: Int = 3600, userIdentity: String? = nil, sessionKey: String? = nil
    ) throws -> String {
        try TokenMinter.mint(
            app: app ?? apps[0], sessionName: session, role: role, issuedAt: issuedAt ?? Instant.wallClock(),
            lifetimeSeconds: lifetime, userIdentity: userIdentity, sessionKey: sessionKey)
    }
}

/// A fresh folder under the system's temporary directory.
public func temporaryFolder(prefix: String = "caucus-test-") -> String {
    let path = NSTemporaryDirectory() + prefix + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `operation`, failing rather than hanging if it never finishes. Only liveness is
/// checked: the bound is generous and nothing asserts on timing.
@discardableResult
public func within<T: Sendable>(
    seconds: Double = 15, _ what: String, _ operation: @escaping @Sendable () async throws -> T
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
