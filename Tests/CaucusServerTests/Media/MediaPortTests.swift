import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// The client-role stack of CaucusMedia (`ICEControllingAgent`, a DTLS client) over a real UDP
/// socket against the server's media port, after a `mediaOffer` on the WebSocket.
@Suite(.serialized) struct MediaPortTests {
    @Test func theClientRoleStackConnectsAndItsRTPIsDecrypted() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let client = try await MediaTestClient.connect(ada, on: server)
        let (key, mediaPort) = (client.key, client.mediaPort)
        try client.sendMedia(1...20)
        // A stranger's datagrams reach no peer: dropped and counted.
        let stranger = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
        for _ in 0..<5 { stranger.send([0x80, 0x60] + [UInt8](repeating: 1, count: 40), to: mediaPort) }
        let media = server.server.media
        let stats = try await within("the server decrypting 20 packets") {
            while true {
                if let stats = await media.stats(for: key), stats.rtpReceived == 20 { return stats }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(stats.isConnected)
        #expect(stats.counters.droppedInbound == 0)
        try await within("the stranger's datagrams counted") {
            while await media.unclaimedDatagrams() < 5 { try await Task.sleep(for: .milliseconds(20)) }
        }
        await server.stop()
    }
}
