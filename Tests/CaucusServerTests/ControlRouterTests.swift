@testable import CaucusServer
import CaucusAuth
import CaucusCore
import CaucusProtocol
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The HTTP control API through Hummingbird's in-process test client: no socket. Bounds,
/// methods, credentials and the OpenAPI document against the router itself.
@Suite struct ControlRouterTests {
    static let app = AppCredentials(key: "router-app", secret: "router-secret-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP")

    /// A server on its own data folder whose router is tested in process.
    static func withRouter(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "router-test")
        logger.logLevel = .critical
        let configuration = ServerConfiguration(port: 0, dataDirectory: CaucusTestSupport.temporaryFolder(), apps: [app])
        let server = try await SessionServer.open(configuration, logger: logger)
        let application = Application(router: server.controlRouter(), logger: logger)
        try await application.test(.router) { client in try await test(client) }
        try await server.store.close()
    }

    static func basic(_ key: String, _ secret: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(key):\(secret)".utf8).base64EncodedString()]
    }

    static let authorized = basic(app.key, app.secret)

    static func errorCode(_ response: TestResponse) -> Int? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? Int
    }

    @Test func historyLimitsOutsideOneToAThousandAreRefused() async throws {
        try await Self.withRouter { client in
            for limit in ["0", "-1", "1001", "abc", "", "1.5", "99999999999999999999", "1e2"] {
                let response = try await client.execute(uri: "/v1/history?limit=\(limit)", method: .get, headers: Self.authorized)
                #expect(response.status == .badRequest, "limit=\(limit)")
                #expect(Self.errorCode(response) == 1004, "limit=\(limit): \(String(buffer: response.body))")
            }
            for uri in ["/v1/history?limit=1", "/v1/history?limit=1000", "/v1/history"] {
                #expect(try await client.execute(uri: uri, method: .get, headers: Self.authorized).status == .ok, "\(uri)")
            }
        }
    }

    @Test func queryParametersARouteDoesNotTakeOrTakesTwiceAreRefused() async throws {
        try await Self.withRouter { client in
            for uri in ["/v1/history?limit=5&limit=6", "/v1/history?since=1", "/v1/history?limit=5&x=", "/v1/sessions?page=2", "/v1/sessions/1?verbose"] {
                let response = try await client.execute(uri: uri, method: .get, headers: Self.authorized)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(Self.errorCode(response) == 1004, "\(uri): \(String(buffer: response.body))")
            }
        }
    }

    @Test(arguments: [
        ("/v1/sessions", HTTPRequest.Method.put, "GET"), ("/v1/sessions", .post, "GET"),
        ("/v1/sessions/7", .patch, "DELETE, GET"), ("/v1/sessions/7/operations", .get, "POST"),
        ("/v1/sessions/7/users/2", .get, "DELETE"), ("/v1/history", .delete, "GET"), ("/healthz", .post, "GET"),
        ("/openapi.json", .put, "GET"), ("/console/dev/token", .get, "POST"), ("/console/dev", .delete, "GET"),
    ])
    func aKnownPathWithAnotherMethodIs405WithAllow(_ path: String, _ method: HTTPRequest.Method, _ allow: String) async throws {
        try await Self.withRouter { client in
            let response = try await client.execute(uri: path, method: method, headers: Self.authorized)
            #expect(response.status == .methodNotAllowed, "\(method) \(path)")
            #expect(response.headers[.allow] == allow, "\(method) \(path)")
            #expect(Self.errorCode(response) == 1014, "\(String(buffer: response.body))")
        }
    }

    @Test func anUnknownPathIsStill404() async throws {
        try await Self.withRouter { client in
            for (path, method) in [("/v1/nowhere", HTTPRequest.Method.get), ("/v1/sessions/1/2/3/4", .put), ("/v2/sessions", .get)] {
                let response = try await client.execute(uri: path, method: method, headers: Self.authorized)
                #expect(response.status == .notFound, "\(method) \(path)")
                #expect(Self.errorCode(response) == 1012)
            }
        }
    }

    /// Every method the table allows reaches a route (never a 404 or 405 for the route itself).
    @Test func theRouterTakesEveryMethodTheTableAllows() async throws {
        try await Self.withRouter { client in
            for route in ControlRouteTable.routes {
                let path = "/" + route.path.map { $0.first == "{" ? "1" : String($0) }.joined(separator: "/")
                for method in route.methods {
                    let response = try await client.execute(uri: path, method: method, headers: Self.authorized)
                    #expect(response.status != .methodNotAllowed, "\(method) \(path)")
                    if response.status == .notFound {
                        // A route's own 404 (no such session, no such file) is not "no such route".
                        #expect(Self.errorCode(response) == 1012, "\(method) \(path)")
                        #expect(!String(buffer: response.body).contains("No such route"), "\(method) \(path)")
                    }
                }
            }
        }
    }

    @Test func theAppSecretMustMatchExactly() async throws {
        let secret = Self.app.secret
        try await Self.withRouter { client in
            #expect(try await client.execute(uri: "/v1/sessions", method: .get, headers: Self.authorized).status == .ok)
            for wrong in [String(secret.dropLast()), secret + "x", "", String(secret.dropFirst()), secret.uppercased(), "x" + secret.dropFirst()] {
                let response = try await client.execute(uri: "/v1/sessions", method: .get, headers: Self.basic(Self.app.key, wrong))
                #expect(response.status == .unauthorized, "secret \(wrong)")
                #expect(Self.errorCode(response) == 1011)
            }
            let otherKey = try await client.execute(uri: "/v1/sessions", method: .get, headers: Self.basic("other", secret))
            #expect(otherKey.status == .unauthorized)
        }
    }

    @Test func theOpenAPIDocumentStatesTheRealOperationsAndBounds() async throws {
        try await Self.withRouter { client in
            let response = try await client.execute(uri: "/openapi.json", method: .get)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
            let operation = (schemas?["Operation"] as? [String: Any])?["properties"] as? [String: Any]
            let ops = try #require((operation?["op"] as? [String: Any])?["enum"] as? [String])
            // Exactly the operations the endpoint runs: each decodes to a command that does not
            // act on the caller's own seat (refused over HTTP, 3006), or a settings change.
            for op in Operation.allCases.map(\.rawValue) {
                let runs: Bool
                switch Result(catching: { () throws(FrameError) in try ClientFrame.decodeOperation(Data(Self.sample(op).utf8)) }) {
                case .success(.command(let command)): runs = !command.needsOwnSeat
                case .success(.updateSettings): runs = true
                default: runs = false
                }
                #expect(ops.contains(op) == runs, "\(op): in the schema \(ops.contains(op)), runs \(runs)")
            }
            let parameters = (document["components"] as? [String: Any])?["parameters"] as? [String: Any]
            let session = ((parameters?["session"] as? [String: Any])?["schema"] as? [String: Any]) ?? [:]
            #expect(session["minimum"] as? Int == 1)
            #expect((session["maximum"] as? NSNumber)?.int64Value == Int64.max)
        }
    }

    /// A request for `op` with every argument any operation needs.
    static func sample(_ op: String) -> String {
        #"{"op":"\#(op)","session":"S","userName":"U","token":"t","secret":"s","lastSeq":0,"user":1,"users":[1],"name":"N","newName":"M","names":["N"],"mode":"group","settings":{},"text":"t","seconds":1,"room":1,"request":1,"answer":"join","count":1,"media":["audio"],"all":true}"#
    }
}
