import CaucusMediaTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import Caucus

/// The SDK's media socket shares its port with nobody. With SO_REUSEADDR on it, Linux counted
/// a port held by another such socket (a media server's on the same machine) as free for the
/// SDK's bind to port 0; the server then got the SDK's checks and answered them to itself, and
/// the SDK's ICE timed out (a CI run, SDKMuteOthersTests).
@Suite struct SDKMediaSocketTests {
    @Test func noOtherSocketSharesTheSDKsMediaPort() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await MediaConnection.socket(on: group.next()).bind(host: "0.0.0.0", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        #expect(try !SharingUDPSocket.binds(host: "0.0.0.0", port: port))
        #expect(try !SharingUDPSocket.binds(host: "127.0.0.1", port: port))
        // The check itself: a port that a sharing socket holds is shared.
        let sharing = try SharingUDPSocket(host: "0.0.0.0", port: 0)
        #expect(try SharingUDPSocket.binds(host: "0.0.0.0", port: sharing.port))
        try await channel.close()
        try await group.shutdownGracefully()
    }
}
