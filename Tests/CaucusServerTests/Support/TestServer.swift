import CaucusAuth
import CaucusCore
import CaucusServer
@_exported import CaucusTestSupport
import Foundation

/// The server the protocol tests talk to: a `RunningServer` with one app.
final class TestServer: Sendable {
    let running: RunningServer

    static func start(
        limits: SessionLimits = .standard, outboundQueueLimit: Int = 1024, maxFrameBytes: Int = 64 * 1024,
        dataDirectory: String? = nil, keepAliveInterval: Duration = .seconds(30),
        rosterWindow: Duration = .milliseconds(5), mediaLoops: Int? = nil, mediaPort: Int = 0,
        maxSessions: Int = AppCredentials.standardMaxSessions, clock: ServerClock = .wall,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let app = AppCredentials(key: "test-app", secret: "test-secret-\(UUID().uuidString)", limits: limits, maxSessions: maxSessions)
        let running = try await RunningServer.start(apps: [app], dataDirectory: dataDirectory, clock: clock) { configuration in
            configuration.outboundQueueLimit = outboundQueueLimit
            configuration.maxFrameBytes = maxFrameBytes
            configuration.keepAliveInterval = keepAliveInterval
            configuration.rosterWindow = rosterWindow
            if let mediaLoops { configuration.mediaLoops = mediaLoops }
            configuration.mediaPort = mediaPort
            configure(&configuration)
        }
        return TestServer(running: running)
    }

    private init(running: RunningServer) { self.running = running }

    var server: SessionServer { running.server }
    var port: Int { running.port }
    var dataDirectory: String { running.dataDirectory }
    var app: AppCredentials { running.apps[0] }
    var webSocketURL: String { running.webSocketURL }

    func stop() async { await running.stop() }

    func token(
        session: String, role: RoleClaim = .participant, issuedAt: Instant? = nil, lifetime: Int = 3600,
        userIdentity: String? = nil, sessionKey: String? = nil
    ) throws -> String {
        try running.token(
            session: session, role: role, issuedAt: issuedAt, lifetime: lifetime, userIdentity: userIdentity, sessionKey: sessionKey)
    }

    /// A client that has joined `session`.
    func joined(
        _ userName: String, session: String = "Class", role: RoleClaim = .participant, password: String? = nil
    ) async throws -> TestClient {
        let client = try await TestClient.connect(to: self)
        try await client.join(session: session, userName: userName, token: try token(session: session, role: role), password: password)
        return client
    }

    static func temporaryFolder() -> String { CaucusTestSupport.temporaryFolder() }
}
