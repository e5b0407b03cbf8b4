import Caucus
import CaucusAuth
import CaucusServer
import Foundation
import Hummingbird
import Logging

/// A real Caucus server on a free loopback port, in this process, with its own data folder.
final class TestServer: Sendable {
    let server: SessionServer
    let port: Int
    let app: AppCredentials
    private let task: Task<Void, any Error>

    static func start(limits: SessionLimits = .standard, replayWindow: Int = 10_000) async throws -> TestServer {
        let folder = NSTemporaryDirectory() + "caucus-sdk-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let app = AppCredentials(key: "sdk-test-app", secret: "sdk-test-secret-\(UUID().uuidString)", limits: limits)
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: folder, apps: [app])
        configuration.maxFrameBytes = 1 << 20
        configuration.replayWindow = replayWindow
        var logger = Logger(label: "sdk-test-server")
        logger.logLevel = .critical
        let server = try await SessionServer.open(configuration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = server.application { port in continuation.yield(port) }
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the server did not start") }
        return TestServer(server: server, port: port, app: app, task: task)
    }

    private init(server: SessionServer, port: Int, app: AppCredentials, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.app = app
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    var url: URL { URL(string: "ws://127.0.0.1:\(port)/ws")! }

    func token(session: String, role: RoleClaim) throws -> String {
        try TokenMinter.mint(app: app, sessionName: session, role: role, issuedAt: Instant.wallClock(), lifetimeSeconds: 3600)
    }

    /// An SDK client that has joined `session` (through `url`, e.g. a proxy, if given).
    func client(
        _ userName: String, session: String = "Class", role: RoleClaim = .participant, password: String? = nil,
        url: URL? = nil, passwordHandler: (@Sendable (PasswordPrompt) async -> String?)? = nil
    ) async throws -> Client {
        let client = Client()
        try await within("\(userName) joins") {
            try await client.session.join(
                url: url ?? self.url, sessionName: session, userName: userName, token: try self.token(session: session, role: role),
                password: password, passwordHandler: passwordHandler)
        }
        return client
    }
}

/// One user of the SDK, with every event it heard.
struct Client: Sendable {
    let session: CaucusSession
    let log: EventLog

    init() {
        session = CaucusSession(configuration: Client.configuration)
        log = EventLog(session.events)
    }

    /// Short delays so that reconnect tests run quickly.
    static var configuration: CaucusSession.Configuration {
        CaucusSession.Configuration(requestTimeout: .seconds(10), reconnectDelay: .milliseconds(50) ... .milliseconds(500))
    }

    var snapshot: CaucusSession.Snapshot {
        get throws {
            guard let snapshot = session.snapshot else { throw TestFailure("no snapshot: not joined") }
            return snapshot
        }
    }

    var id: UserID {
        get throws { try snapshot.myself.id }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `operation`, failing rather than hanging if it never finishes. Only liveness is
/// checked: the bound is generous and nothing asserts on timing.
@discardableResult
func within<T: Sendable>(
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

/// Waits until `condition` holds, polling; fails after `seconds`.
func eventually(seconds: Double = 15, _ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
