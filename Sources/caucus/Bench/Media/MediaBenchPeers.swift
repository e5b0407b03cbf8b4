import CaucusMedia
import Foundation
import NIOCore
import NIOPosix

/// Every synthetic user's media, spread over the client event loops, and senders per loop
/// that make each publisher send its audio and video at their rates. The bench reaches the
/// loop-confined peers only through their loops.
final class MediaBenchPeers: Sendable {
    private struct Member: Sendable {
        let channel: any Channel
        let peer: NIOLoopBound<MediaBenchPeer>
    }

    private let members: [Member]
    private let senders = Locked([RepeatedTask]())

    private init(members: [Member]) { self.members = members }

    var count: Int { members.count }

    /// One UDP socket and peer per user; each sends its offer (the shape's receive slots, the
    /// first of each kind it publishes on the section it sends on), and its peer connects with
    /// the server's answer. One certificate serves every user: its key is the costly part.
    static func connect(
        _ users: [BenchUser], shape: MediaBenchShape, audioBytes: Int, video: (bytes: Int, packets: Int), group: MultiThreadedEventLoopGroup, parallel: Int = 32
    ) async throws -> MediaBenchPeers {
        let certificate = try DTLSCertificate.generate(commonName: "bench")
        var members = [Member?](repeating: nil, count: users.count)
        try await withThrowingTaskGroup(of: (Int, Member).self) { tasks in
            var next = 0
            func launch() {
                let index = next
                next += 1
                let kinds = shape.publishes[index]
                let publication = MediaBenchPeer.Publication(
                    audioSSRC: kinds.contains(.audio) ? MediaBenchShape.ssrc(of: index, .audio) : nil,
                    videoSSRC: kinds.contains(.video) ? MediaBenchShape.ssrc(of: index, .video) : nil, audioBytes: audioBytes,
                    videoBytes: video.bytes, videoPackets: video.packets)
                tasks.addTask {
                    (index, try await connectOne(users[index], index: index, publication: publication, shape: shape, certificate: certificate, group: group))
                }
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
        _ user: BenchUser, index: Int, publication: MediaBenchPeer.Publication, shape: MediaBenchShape, certificate: DTLSCertificate,
        group: MultiThreadedEventLoopGroup
    ) async throws -> Member {
        let channel = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaBenchPeer(index: index, publication: publication))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let peer = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: MediaBenchPeer.self), eventLoop: channel.eventLoop)
        }.get()
        let credentials = ICECredentials.random()
        var offer = SDPOffer(
            sections: sections(.audio, slots: shape.audioSlots, publishing: publication.audioSSRC)
                + sections(.video, slots: shape.videoSlots, publishing: publication.videoSSRC),
            credentials: credentials, fingerprint: certificate.fingerprint)
        // As browsers do; the packets carry a level only while speakers take turns.
        offer.audioLevelID = MediaBenchPeer.audioLevelID
        let sdp = String(decoding: try JSONEncoder().encode(offer.text), as: UTF8.self)
        let reply = try await user.request("mediaOffer", #""sdp":\#(sdp)"#)
        let object = try JSONSerialization.jsonObject(with: Data(reply.readableBytesView)) as? [String: Any]
        guard let answer = (object?["result"] as? [String: Any])?["sdp"] as? String else { throw BenchError("no answer in \(String(buffer: reply))") }
        let description = try SessionDescription(parsing: answer)
        let connected = channel.eventLoop.makePromise(of: Void.self)
        try await channel.eventLoop.submit {
            try peer.value.connect(credentials: credentials, certificate: certificate, answer: description, promise: connected)
        }.get()
        try await connected.futureResult.get()
        return Member(channel: channel, peer: peer)
    }

    /// `slots` receive sections of `kind`, the first one sending when the user publishes it.
    private static func sections(_ kind: SDPOffer.Section.Kind, slots: Int, publishing ssrc: UInt32?) -> [SDPOffer.Section] {
        guard slots > 0 else { return ssrc.map { [.publishing(kind, ssrc: $0)] } ?? [] }
        let first: SDPOffer.Section = ssrc.map { .publishing(kind, ssrc: $0) } ?? .receiving(kind)
        return [first] + Array(repeating: .receiving(kind), count: slots - 1)
    }

    /// Runs `body` on every peer, on its loop (one task per loop), and returns the results in user order.
    func each<Result: Sendable>(_ body: @escaping @Sendable (MediaBenchPeer) -> Result) async throws -> [Result] {
        var results = [Result?](repeating: nil, count: members.count)
        for (loop, indexed) in byLoop() {
            let batch = try await loop.submit { indexed.map { ($0.0, body($0.1.value)) } }.get()
            for (index, result) in batch { results[index] = result }
        }
        return results.compactMap { $0 }
    }

    /// Each publisher sends `audioRate` audio packets and `frameRate` video frames a second
    /// until `stopSending`. Users are spread over four phases of each period, so the server
    /// sees a steady stream rather than bursts. A tick that runs late sends every phase that
    /// came due meanwhile, so the rate holds when the loop is busy (a repeated task's delay
    /// counts from the end of the last run).
    func startSending(audioRate: Int, frameRate: Int) {
        var tasks: [RepeatedTask] = []
        for (loop, indexed) in byLoop() {
            let peers = indexed.map(\.1)
            if audioRate > 0 { tasks.append(Self.repeating(on: loop, peers: peers, rate: audioRate) { $0.sendAudio() }) }
            if frameRate > 0 { tasks.append(Self.repeating(on: loop, peers: peers, rate: frameRate) { $0.sendVideoFrame() }) }
        }
        senders.withLockedValue { $0 += tasks }
    }

    private static func repeating(
        on loop: any EventLoop, peers: [NIOLoopBound<MediaBenchPeer>], rate: Int, _ send: @escaping @Sendable (MediaBenchPeer) -> Void
    ) -> RepeatedTask {
        let phases = 4
        let phaseNanoseconds = 1_000_000_000 / Int64(rate * phases)
        let started = NIODeadline.now()
        let sentPhases = NIOLoopBoundBox.makeBoxSendingValue(0, as: Int.self, eventLoop: loop)
        return loop.scheduleRepeatedTask(initialDelay: .zero, delay: .nanoseconds(phaseNanoseconds)) { _ in
            let due = Int((NIODeadline.now() - started).nanoseconds / phaseNanoseconds) + 1
            while sentPhases.value < due {
                let phase = sentPhases.value % phases
                sentPhases.value += 1
                for (offset, peer) in peers.enumerated() where offset % phases == phase {
                    send(peer.value)
                    peer.value.flush()
                }
            }
        }
    }

    func stopSending() {
        senders.withLockedValue { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
    }

    /// Points every user at the relay, a hundred at a time: a thousand users' hellos sent at
    /// once overflow the relay's socket, and a user it never heard from gets nothing.
    func useRelay(_ address: SocketAddress) async throws {
        for start in stride(from: 0, to: members.count, by: 100) {
            for member in members[start..<min(start + 100, members.count)] {
                let peer = member.peer
                try await member.channel.eventLoop.submit { peer.value.useRelay(address) }.get()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func close() async {
        stopSending()
        for member in members { try? await member.channel.close() }
    }

    /// The members by event loop, each with its index.
    private func byLoop() -> [(any EventLoop, [(Int, NIOLoopBound<MediaBenchPeer>)])] {
        var loops: [ObjectIdentifier: (any EventLoop, [(Int, NIOLoopBound<MediaBenchPeer>)])] = [:]
        for (index, member) in members.enumerated() {
            loops[ObjectIdentifier(member.channel.eventLoop), default: (member.channel.eventLoop, [])].1.append((index, member.peer))
        }
        return Array(loops.values)
    }
}
