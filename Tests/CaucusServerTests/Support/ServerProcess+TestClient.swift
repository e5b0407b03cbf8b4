import CaucusAuth
import CaucusCore
import CaucusTestSupport

extension ServerProcess {
    func joined(_ userName: String, session: String = "Class", role: RoleClaim = .participant) async throws -> TestClient {
        let client = try await TestClient.connect(url: webSocketURL)
        try await client.join(session: session, userName: userName, token: try token(session: session, role: role))
        return client
    }
}
