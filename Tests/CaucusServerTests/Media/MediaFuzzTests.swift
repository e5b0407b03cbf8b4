import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// 100,000 unusable datagrams at the media port — random bytes, truncated and forged STUN,
/// DTLS-looking records, truncated RTP and RTCP, SRTP with a wrong tag, replays, 64 KiB
/// datagrams — from a connected peer's own address and from a stranger. Every one is dropped;
/// the server stays up, the peer stays connected and its next media still gets through, and
/// the session goes on.
@Suite(.serialized) struct MediaFuzzTests {
    static let datagrams = 100_000

    @Test func malformedDatagramsAreDroppedAndDisturbNothing() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let client = try await MediaTestClient.connect(ada, on: server)
        let media = server.server.media
        let key = client.key
        try client.sendMedia(1...5)
        try await within("the first packets decrypted") {
            while await media.stats(for: key)?.rtpReceived != 5 { try await Task.sleep(for: .milliseconds(20)) }
        }

        var random = SplitMix64(seed: 0x5EED)
        let replayed = try client.protectedPacket(sequence: 3)
        // Real packets of the stream whose tags the fuzz breaks. Made before, and few, so the
        // client's own rollover counter stays where the server's is.
        let forgeable = try (6...50).map { try client.protectedPacket(sequence: UInt16($0)) }
        let stranger = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
        for index in 0..<Self.datagrams {
            let datagram = Self.unusable(index, random: &random, replayed: replayed, forgeable: forgeable)
            // Most from the peer's own address, where they reach its ICE, DTLS and SRTP.
            if index % 10 == 0 {
                stranger.send(datagram, to: client.mediaPort)
            } else {
                client.socket.send(datagram, to: client.mediaPort)
            }
            // Now and then let the server catch up, so the kernel drops few of them unread.
            if index % 2_000 == 1_999 {
                client.keepConsent()
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        // Once the server has read what the kernel kept (its counters stop moving)…
        let settled = try await within("the server reading the fuzz") {
            var last = await media.stats(for: key)
            while true {
                try await Task.sleep(for: .milliseconds(200))
                let now = await media.stats(for: key)
                if now == last { return now }
                last = now
            }
        }
        #expect(settled?.isConnected == true, "the fuzz closed the peer: \(String(describing: settled))")
        // The same peer's next media gets through, so nothing the fuzz sent broke its keys,
        // its replay window or its consent.
        try client.sendMedia(100...119)
        let stats = try await within("the peer's media after the fuzz") {
            while true {
                if let stats = await media.stats(for: key), stats.rtpReceived == 25 { return stats }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(stats.isConnected)
        // How many were read depends on the kernel (a full receive buffer drops a burst's
        // tail unread), so the counters are checked for each kind, not for a total.
        #expect(stats.counters.authenticationFailures > 0, "forged tags were counted: \(stats.counters)")
        #expect(stats.counters.replays > 0, "replays were counted: \(stats.counters)")
        #expect(stats.counters.malformed > 0, "malformed datagrams were counted: \(stats.counters)")
        #expect(await media.unclaimedDatagrams() > 0, "the stranger's were counted")
        // The session goes on: a command and its reply.
        let reply = try await ada.request("chat", ["text": "still here"])
        #expect(reply["seq"] != nil)
        await server.stop()
    }

    /// One unusable datagram, by turns of every kind.
    static func unusable(_ index: Int, random: inout SplitMix64, replayed: [UInt8], forgeable: [[UInt8]]) -> [UInt8] {
        func bytes(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + 8)
            while bytes.count < count { withUnsafeBytes(of: random.next()) { bytes += $0 } }
            return Array(bytes.prefix(count))
        }
        let length = Int.random(in: 0...300, using: &random)
        switch index % 9 {
        case 0:
            return bytes(length)
        case 1:
            // STUN-shaped: a binding request header with the magic cookie, then garbage or a cut.
            var stun: [UInt8] = [0x00, 0x01, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), 0x21, 0x12, 0xA4, 0x42]
            stun += bytes(12 + Int.random(in: 0...60, using: &random))
            return Array(stun.prefix(Int.random(in: 1...stun.count, using: &random)))
        case 2:
            // DTLS-shaped: a content type 20…63, then a record of garbage.
            return [UInt8.random(in: 20...63, using: &random)] + bytes(length)
        case 3:
            // RTP-shaped but truncated (fewer than 12 bytes, or a header whose extension overruns).
            return [0x80 | UInt8.random(in: 0...0x1F, using: &random)] + bytes(Int.random(in: 0...15, using: &random))
        case 4:
            // RTCP-shaped (payload types 192…223) with garbage.
            return [0x80, UInt8.random(in: 192...223, using: &random)] + bytes(length)
        case 5:
            // The peer's own stream with a wrong tag.
            var packet = forgeable[Int.random(in: 0..<forgeable.count, using: &random)]
            packet[Int.random(in: 12..<packet.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
            return packet
        case 6:
            return replayed
        case 7:
            // As large as a UDP datagram over IPv4 may be.
            return index % 63 == 7 ? [0x80, 111] + [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: 65_000) : bytes(length)
        default:
            // SRTP header of the peer's SSRC with a random body: fails authentication.
            return [0x80, 111, UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), 0, 0, 0, 9, 0xCA, 0xFE, 0, 1]
                + bytes(length + 10)
        }
    }
}
