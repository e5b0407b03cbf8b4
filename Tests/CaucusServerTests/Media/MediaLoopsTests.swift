import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import CaucusProcessTestSupport
import CaucusStore
import CaucusTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// The media port served by several channels on one port (`SO_REUSEPORT`), a session's peers on
/// one loop: what the kernel hands another loop's socket reaches its peer all the same.
@Suite(.serialized) struct MediaLoopsTests {
    /// Sixteen users of one session on their own sockets: the kernel spreads their datagrams
    /// over both sockets by a hash of the addresses, so about half reach the loop that does not
    /// hold the session (all sixteen on the right one would be a 1 in 65,536 chance). Every
    /// one connects, its media is decrypted, and some datagrams were handed over.
    @Test func datagramsOnAnotherLoopsSocketReachTheirPeer() async throws {
        let server = try await TestServer.start(mediaLoops: 2)
        let media = server.server.media
        #expect(media.loopCount == 2)
        let host = try await server.joined("Host", role: .host)
        var clients: [MediaTestClient] = [try await MediaTestClient.connect(host, on: server)]
        for index in 1..<16 {
            let user = try await server.joined("User \(index)")
            // Each its own SSRC: two users of a session may not send from one.
            let section = SDPOffer.Section(kind: .audio, direction: .sendonly, sendingSSRC: MediaTestClient.ssrc + UInt32(index))
            clients.append(try await MediaTestClient.connect(user, on: server, sections: [section]))
        }
        #expect(Set(clients.map(\.mediaPort)).count == 1, "one port for every peer")
        for client in clients { try client.sendMedia(1...5) }
        for client in clients {
            let key = client.key
            let stats = try await within("the server decrypting a client's 5 packets") {
                while true {
                    if let stats = await media.stats(for: key), stats.rtpReceived == 5 { return stats }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(stats.isConnected && stats.counters.droppedInbound == 0)
        }
        #expect(await media.handedOverDatagrams() > 0)
        #expect(await media.unclaimedDatagrams() == 0)
        await server.stop()
    }

    /// By default one channel serves the media port, whatever the cores: with two, the kernel
    /// hands half of a session's datagrams to the loop that is not the session's (a hand-over
    /// each), which cost one session about 15 % more CPU per forwarded packet.
    @Test func oneLoopByDefault() async throws {
        let server = try await TestServer.start()
        #expect(server.server.media.loopCount == 1)
        let host = try await server.joined("Host", role: .host)
        let client = try await MediaTestClient.connect(host, on: server)
        try client.sendMedia(1...5)
        let key = client.key
        let media = server.server.media
        let stats = try await within("the server decrypting the client's 5 packets") {
            while true {
                if let stats = await media.stats(for: key), stats.rtpReceived == 5 { return stats }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(stats.isConnected && stats.counters.droppedInbound == 0)
        #expect(await media.handedOverDatagrams() == 0)
        await server.stop()
    }

    /// Sessions are spread over the loops by their ids; an answer's ufrag names its loop.
    @Test func sessionsSpreadOverTheLoopsAndUfragsNameThem() async throws {
        let server = try await TestServer.start(mediaLoops: 2)
        let media = server.server.media
        #expect(Set((1...4).map { media.shardIndex(of: StoredSessionID(rawValue: $0)) }) == [0, 1])
        let host = try await server.joined("Host", role: .host)
        let key = try await MediaSignallingTests.key(of: host, on: server)
        let answer = try #require(try await host.request("mediaOffer", ["sdp": MediaSignallingTests.offer])["sdp"] as? String)
        let ufrag = try MediaSignallingTests.credentials(in: answer).ufrag
        #expect(ufrag.hasPrefix("\(media.shardIndex(of: key.session))+"))
        await server.stop()
    }

    /// A second server given the first's media port does not start: its sockets would share the
    /// port with the first's (`SO_REUSEPORT`) and take half its traffic.
    @Test func aMediaPortInUseIsRefused() async throws {
        let first = try await TestServer.start(mediaLoops: 2)
        await #expect(throws: (any Error).self) { _ = try await TestServer.start(mediaLoops: 2, mediaPort: first.server.mediaPort) }
        let host = try await first.joined("Host", role: .host)
        _ = try await MediaTestClient.connect(host, on: first)
        await first.stop()
    }

    /// No other program's socket shares the media port, even one that asks to (`SO_REUSEADDR`):
    /// Linux's choice of a free port for such a socket (a client's bind to port 0) follows the
    /// same rule, and a client socket handed the server's port as "free" had its checks answered
    /// to the server itself (an SDK client's ICE timed out in a CI run). The shards still share
    /// it among themselves (`SO_REUSEPORT`).
    @Test func noOtherSocketSharesTheMediaPort() async throws {
        let server = try await TestServer.start(mediaLoops: 2)
        let port = server.server.mediaPort
        #expect(try !SharingUDPSocket.binds(host: "127.0.0.1", port: port))
        #expect(try !SharingUDPSocket.binds(host: "0.0.0.0", port: port))
        // The check itself: a port that a sharing socket holds is shared.
        let sharing = try SharingUDPSocket(host: "127.0.0.1", port: 0)
        #expect(try SharingUDPSocket.binds(host: "127.0.0.1", port: sharing.port))
        let host = try await server.joined("Host", role: .host)
        _ = try await MediaTestClient.connect(host, on: server)
        await server.stop()
    }

    /// `--media-loops` and `CAUCUS_MEDIA_LOOPS` outside 1…cores, or not a number, stop
    /// `caucus serve` before it starts, with what is wrong; so does a media routing slice
    /// (`--media-routing-slice`, `CAUCUS_MEDIA_ROUTING_SLICE`) below 1 or not a number.
    @Test(arguments: [
        (["--media-loops", "0"], [:], "The media loops are 1 to"),
        (["--media-loops", "100000"], [:], "The media loops are 1 to"),
        ([], ["CAUCUS_MEDIA_LOOPS": "many"], "CAUCUS_MEDIA_LOOPS must be a number"),
        (["--media-routing-slice", "0"], [:], "The media routing slice is 1 or more"),
        ([], ["CAUCUS_MEDIA_ROUTING_SLICE": "big"], "CAUCUS_MEDIA_ROUTING_SLICE must be a number"),
    ] as [([String], [String: String], String)])
    func aBadLoopCountIsRefused(arguments: [String], environment: [String: String], message: String) async throws {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["serve", "--port", "0", "--data", NSTemporaryDirectory() + "caucus-loops-" + UUID().uuidString] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let (status, text) = try await offThePool {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        #expect(status != 0)
        #expect(text.contains(message), "\(text)")
    }
}
