import CaucusMedia
import Foundation
import NIOCore
import NIOPosix

/// Every synthetic user's media, spread over the client event loops, and a sender per loop
/// that makes each user publish `rate` packets a second. The bench reaches the loop-confined
/// peers only through their loops.
final class MediaBenchPeers: Sendable {
    private struct Member: Sendable {
        let channel: any Channel
        let peer: NIOLoopBound<MediaBenchPeer>
    }

    private let members: [Member]
    private let senders = Locked([RepeatedTask]())

    private init(members: [Member]) { self.members = members }

    var count: Int { members.count }

    /// One UDP socket and peer per user; each sends its offer (`audioSlots` receive slots, one
    /// of them on the section it publishes on), and its peer connects with the server's answer.
    static func connect(
        _ users: [BenchUser], audioSlots: Int, payloadBytes: Int, group: MultiThreadedEventLoopGroup, parallel: Int = 32
    ) async throws -> MediaBenchPeers {
        let certificate = try DTLSCertificate.generate(commonName: "bench")
        var members = [Member?](repeating: nil, count: users.count)
        try await withThrowingTaskGroup(of: (Int, Member).self) { tasks in
            var next = 0
            func launch() {
                let index = next
                next += 1
                tasks.addTask { (index, try await connectOne(users[index], index: index, audioSlots: audioSlots, payloadBytes: payloadBytes, certificate: certificate, group: group)) }
            }
            while next < min(parallel, users.count) { launch() }
            while let (index, member) = try await tasks.next() {
                members[index] = member
                if next < users.count { launch() }
            }
        }
        return MediaBenchPeers(members: members.compactMap { $0 })
    }

    private static func connectOne(
        _ user: BenchUser, index: Int, audioSlots: Int, payloadBytes: Int, certificate: DTLSCertificate, group: MultiThreadedEventLoopGroup
    ) async throws -> Member {
        let ssrc = 0x1000_0000 + UInt32(index)
        let channel = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaBenchPeer(index: index, ssrc: ssrc, payloadBytes: payloadBytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let peer = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: MediaBenchPeer.self), eventLoop: channel.eventLoop)
        }.get()
        let credentials = ICECredentials.random()
        let offer = SDPOffer(
            sections: [.publishing(.audio, ssrc: ssrc)] + Array(repeating: .receiving(.audio), count: max(0, audioSlots - 1)),
            credentials: credentials, fingerprint: certificate.fingerprint)
        let sdp = String(decoding: try JSONEncoder().encode(offer.text), as: UTF8.self)
        let reply = try await user.request("mediaOffer", #""sdp":\#(sdp)"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.readableBytesView)) as? [String: Any]
        guard let answer = (object?["result"] as? [String: Any])?["sdp"] as? String else { throw BenchError("no answer in \(String(buffer: reply))") }
        let endpoint = try MediaServerEndpoint(answer: try SessionDescription(parsing: answer))
        let connected = channel.eventLoop.makePromise(of: Void.self)
        try await channel.eventLoop.submit {
            try peer.value.connect(credentials: credentials, certificate: certificate, server: endpoint, promise: connected)
        }.get()
        try await connected.futureResult.get()
        return Member(channel: channel, peer: peer)
    }

    /// Runs `body` on every peer, on its loop, and returns the results in user order.
    func each<Result: Sendable>(_ body: @escaping @Sendable (MediaBenchPeer) -> Result) async throws -> [Result] {
        var results: [Result] = []
        for member in members {
            let peer = member.peer
            results.append(try await member.channel.eventLoop.submit { body(peer.value) }.get())
        }
        return results
    }

    /// Every user publishes `rate` packets a second until `stopSending`. Users are spread over
    /// four phases of the period, so the server sees a steady stream rather than one burst. A
    /// tick that runs late sends every phase that came due meanwhile, so the rate holds when
    /// the loop is busy (a repeated task's delay counts from the end of the last run).
    func startSending(rate: Int) {
        let phases = 4
        let phaseNanoseconds = 1_000_000_000 / Int64(rate * phases)
        var byLoop: [ObjectIdentifier: (any EventLoop, [NIOLoopBound<MediaBenchPeer>])] = [:]
        for member in members {
            let key = ObjectIdentifier(member.channel.eventLoop)
            byLoop[key, default: (member.channel.eventLoop, [])].1.append(member.peer)
        }
        let started = NIODeadline.now()
        let tasks = byLoop.values.map { loop, peers in
            let sentPhases = NIOLoopBoundBox.makeBoxSendingValue(0, as: Int.self, eventLoop: loop)
            return loop.scheduleRepeatedTask(initialDelay: .zero, delay: .nanoseconds(phaseNanoseconds)) { _ in
                let due = Int((NIODeadline.now() - started).nanoseconds / phaseNanoseconds) + 1
                while sentPhases.value < due {
                    let phase = sentPhases.value % phases
                    sentPhases.value += 1
                    for (offset, peer) in peers.enumerated() where offset % phases == phase {
                        peer.value.sendAudio()
                        peer.value.flush()
                    }
                }
            }
        }
        senders.withLockedValue { $0 += tasks }
    }

    func stopSending() {
        senders.withLockedValue { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
    }

    func useRelay(_ address: SocketAddress) async throws {
        _ = try await each { $0.useRelay(address) }
    }

    func close() async {
        stopSending()
        for member in members { try? await member.channel.close() }
    }
}
