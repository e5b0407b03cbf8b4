import CaucusCore
import CaucusMedia
import CaucusSFU
import Testing
@_spi(Benchmarks) @testable import CaucusServer

/// A peer's address is the peer's: a check another peer sends from it (its own check, its
/// source forged) takes it for a moment at most, and the owner's next check takes it back, so
/// that the owner's media from it is the owner's again.
@Suite struct MediaPeerAddressTests {
    typealias Shard = MediaShardCoreTests

    @Test func anAddressAnotherPeersCheckTookComesBackWithItsOwnersNextCheck() throws {
        let shard = try InMemoryShard()
        try shard.connect(Shard.ada, sections: [.publishing(.video, ssrc: Shard.adaSSRC)])
        try shard.connect(Shard.bo, sections: [.receiving(.video)])
        let (ada, bo) = (try #require(shard.clients[Shard.ada]), try #require(shard.clients[Shard.bo]))
        func check(of client: InMemoryShard.Client) throws -> [UInt8] {
            let due = try #require(client.peer.nextDeadline)
            let out = client.peer.handleTimeout(now: due)
            return try #require(out.datagrams.first { DatagramKind(classifying: $0.bytes) == .stun }?.bytes, "a consent check")
        }
        func rtcpReceived(_ client: InMemoryShard.Client) -> Int { shard.core.table.stats(for: client.key)?.rtcpReceived ?? -1 }
        let report = [RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: 5, reports: []))]

        // Ada's own check, arriving from Bo's address.
        var forged = try check(of: ada)
        _ = shard.core.receive(datagram: &forged, from: bo.address, at: shard.now)
        // Bo's next check from its address takes it back: Bo's RTCP from there is Bo's.
        var own = try check(of: bo)
        _ = shard.core.receive(datagram: &own, from: bo.address, at: shard.now)
        let (boBefore, adaBefore) = (rtcpReceived(bo), rtcpReceived(ada))
        try shard.send(rtcp: report, from: Shard.bo)
        #expect(rtcpReceived(bo) == boBefore + 1, "Bo's RTCP reached Bo's peer")
        #expect(rtcpReceived(ada) == adaBefore)
    }
}
