import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// An ICE-TCP connection holds a descriptor from its first byte, whoever opens it: it has a
/// deadline for its first binding request and one for silence after, and connections have a
/// ceiling in all and per address (`MediaTCPLimits`).
@Suite(.serialized) struct MediaTCPLimitsTests {
    static func tcpAddress(of server: TestServer) throws -> TransportAddress {
        let port = try #require(server.server.media.tcpCandidate?.port)
        return TransportAddress(ip: IPAddress("127.0.0.1")!, port: port)
    }

    @Test func aConnectionThatNamesNoPeerIsClosedAtItsDeadline() async throws {
        let server = try await TestServer.start { $0.mediaTCPLimits.firstRequestDeadline = .milliseconds(300) }
        var silent = try LoopbackTCPStream(connectingTo: try Self.tcpAddress(of: server), receiveTimeoutMilliseconds: 10_000)
        let closed1 = silent.isClosedByServer()
        #expect(closed1, "a connection that says nothing")
        // Bytes that are no binding request do not put it off.
        var talking = try LoopbackTCPStream(connectingTo: try Self.tcpAddress(of: server), receiveTimeoutMilliseconds: 10_000)
        talking.send([0x80, 0x60, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1])
        let closed2 = talking.isClosedByServer()
        #expect(closed2, "a connection that sends what names no peer")
        await server.stop()
    }

    @Test func aConnectionThatFallsSilentIsClosedAfterTheIdleTimeout() async throws {
        let server = try await TestServer.start { $0.mediaTCPLimits.idleTimeout = .milliseconds(300) }
        // Waited for less than the first request's deadline (10 s): the silence closes it.
        var stream = try LoopbackTCPStream(connectingTo: try Self.tcpAddress(of: server), receiveTimeoutMilliseconds: 5_000)
        let closed3 = stream.isClosedByServer()
        #expect(closed3)
        await server.stop()
    }

    @Test func connectionsPastTheCeilingAreClosedAtOnce() async throws {
        let server = try await TestServer.start { $0.mediaTCPLimits.maximumPerAddress = 2 }
        let address = try Self.tcpAddress(of: server)
        var first = try LoopbackTCPStream(connectingTo: address, receiveTimeoutMilliseconds: 300)
        let closed4 = first.isClosedByServer()
        #expect(!closed4, "within the ceiling: open")
        do {
            var second = try LoopbackTCPStream(connectingTo: address, receiveTimeoutMilliseconds: 300)
            let closed5 = second.isClosedByServer()
            #expect(!closed5, "within the ceiling: open")
            var third = try LoopbackTCPStream(connectingTo: address, receiveTimeoutMilliseconds: 10_000)
            let closed6 = third.isClosedByServer()
            #expect(closed6, "a third from one address")
        }
        // The second closed (its scope ended) leaves room for another.
        try await Task.sleep(for: .milliseconds(200))
        var again = try LoopbackTCPStream(connectingTo: address, receiveTimeoutMilliseconds: 300)
        let closed7 = again.isClosedByServer()
        #expect(!closed7)
        let closed8 = first.isClosedByServer()
        #expect(!closed8)
        await server.stop()
    }
}
