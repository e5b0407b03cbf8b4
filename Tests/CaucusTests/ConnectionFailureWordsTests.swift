import Caucus
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A join that cannot connect says why in an app's words, naming the place, never in
/// SwiftNIO's ("Inappropriate operation for state", "errno: 111", "NIOConnectionError").
@Suite(.serialized) struct ConnectionFailureWordsTests {
    static let nioWords = ["Inappropriate operation", "errno", "NIOConnectionError", "IOError", "ioOnClosedChannel", "ChannelError"]

    static func joinFailure(url: URL, token: String) async throws -> String {
        let client = Client(configuration: BadNetworkTests.configuration)
        let error = try await within(seconds: 30, "the join fails") {
            do throws(SessionError) {
                _ = try await client.session.join(url: url, sessionName: "Words", userName: "Ann", token: token)
                return SessionError.invalidResponse("joined")
            } catch {
                return error
            }
        }
        guard case .connectionFailed(let reason) = error else { throw TestFailure("expected connectionFailed, got \(error)") }
        #expect(client.session.connectionState == .disconnected)
        return reason
    }

    @Test func aPortNobodyListensOnIsRefusedInPlainWords() async throws {
        let server = try await TestServer.start()
        let token = try server.token(session: "Words", role: .participant)
        let port = server.port
        await server.stop()
        let reason = try await Self.joinFailure(url: URL(string: "ws://127.0.0.1:\(port)/ws")!, token: token)
        #expect(reason.contains("nothing accepts connections at 127.0.0.1:\(port)"), "\(reason)")
        for word in Self.nioWords { #expect(!reason.contains(word), "\(reason)") }
    }

    @Test func aConnectionClosedBeforeTheUpgradeIsSaidSo() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        proxy.misbehave(.acceptAndClose)
        let reason = try await Self.joinFailure(url: proxy.url, token: try server.token(session: "Words", role: .participant))
        // WSClient cannot tell a peer that closes before the upgrade from a slow one (Socket.swift).
        #expect(reason.contains("closed") || reason.contains("no WebSocket upgrade within"), "\(reason)")
        for word in Self.nioWords { #expect(!reason.contains(word), "\(reason)") }
        await proxy.stop()
        await server.stop()
    }

    @Test func aServerThatAnswersWithoutAnUpgradeIsSaidSo() async throws {
        let server = try await TestServer.start()
        let reason = try await Self.joinFailure(url: URL(string: "ws://127.0.0.1:\(server.port)/not-a-socket")!, token: try server.token(session: "Words", role: .participant))
        #expect(reason.contains("not with a WebSocket upgrade"), "\(reason)")
        for word in Self.nioWords { #expect(!reason.contains(word), "\(reason)") }
        await server.stop()
    }
}
