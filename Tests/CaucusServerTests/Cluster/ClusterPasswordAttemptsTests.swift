import CaucusCore
import Foundation
import Testing

/// Wrong session passwords on several nodes (docs/errors.md, 2032): they count on the node that
/// serves the session, whichever node they were sent to.
@Suite(.serialized) struct ClusterPasswordAttemptsTests {
    /// Another node answers `otherNode` (1015) before it reads a password, so a guesser who goes
    /// round the nodes has thirty guesses for the session in all, not thirty a node.
    @Test func wrongPasswordsSentToAnyNodeCountOnTheNodeServingTheSession() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 10)
        let (serving, other) = (cluster.nodes[0], cluster.nodes[1])
        let host = try await TestClient.connect(url: serving.webSocketURL)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host), password: "s3cret")
        let token = try cluster.token(session: "Class")
        func join(at node: ServerProcess, _ password: String) async throws -> Int {
            let client = try await TestClient.connect(url: node.webSocketURL)
            let code = try await client.refused("join", ["session": "Class", "userName": "Bob", "token": token, "password": password])
            await client.close()
            return code
        }
        for guess in 0..<30 {
            #expect(try await join(at: other, "guess\(guess)") == 1015, "sent on to the serving node, not answered")
            #expect(try await join(at: serving, "guess\(guess)") == 2011)
        }
        // Every guess was read by the serving node only (the other turned each join away
        // before reading its password, as a client that follows 1015 finds): after thirty the
        // serving node refuses even the right password, and the other still sends it there.
        #expect(try await join(at: other, "s3cret") == 1015)
        #expect(try await join(at: serving, "s3cret") == 2032)
        await host.close()
    }
}
