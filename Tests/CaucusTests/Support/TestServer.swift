import Caucus
import CaucusCore
@_exported import CaucusTestSupport
import CaucusAuth
import CaucusServer
import Foundation
import Hummingbird
import Logging

/// The server the SDK tests talk to: a `RunningServer` with one app.
final class TestServer: Sendable {
    let running: RunningServer

    /// `configure` adjusts the configuration last (the media tests move the media address).
    static func start(
        limits: SessionLimits = .standard, replayWindow: Int = 10_000, clock: ServerClock = .wall,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let app = AppCredentials(key: "sdk-test-app", secret: "sdk-test-secret-\(UUID().uuidString)", limits: limits)
        let running = try await RunningServer.start(apps: [app], dataDirectory: temporaryFolder(prefix: "caucus-sdk-test-"), clock: clock) {
            configuration in
            configuration.maxFrameBytes = 1 << 20
            configuration.replayWindow = replayWindow
            configure(&configuration)
        }
        return TestServer(running: running)
    }

    private init(running: RunningServer) { self.running = running }

    var server: SessionServer { running.server }
    var port: Int { running.port }
    var app: AppCredentials { running.apps[0] }

    func stop() async { await running.stop() }

    var url: URL { URL(string: running.webSocketURL)! }

    func token(session: String, role: RoleClaim) throws -> String {
        try running.token(session: session, role: role)
    }

    /// An SDK client that has joined `session` (through `url`, e.g. a proxy, if given).
    func client(
        _ userName: String, session: String = "Class", role: RoleClaim = .participant, password: String? = nil,
        url: URL? = nil, passwordHandler: (@Sendable (PasswordPrompt) async -> String?)? = nil,
        configuration: CaucusSession.Configuration = Client.configuration
    ) async throws -> Client {
        let client = Client(configuration: configuration)
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

    init(configuration: CaucusSession.Configuration = Client.configuration) {
        session = CaucusSession(configuration: configuration)
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

/// Waits until `condition` holds, polling; fails after `seconds`.
func eventually(seconds: Double = 15, _ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
