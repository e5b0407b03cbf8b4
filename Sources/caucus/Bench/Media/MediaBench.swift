import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// `caucus bench media`: synthetic users of the client-role stack (`MediaClientPeer`) in one
/// session, spread over rooms, each publishing Opus-sized audio. Measures what the server
/// forwards and its CPU time per forwarded packet, then the same for a bare SwiftNIO UDP relay
/// with the same fan-out (the floor, in the same run), then how long a move takes to bring
/// each user the audio of its new room.
struct MediaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media", abstract: "Audio through the server's router, against a bare UDP relay.")

    @Option(help: "Users publishing audio (and receiving).") var users = 200
    @Option(help: "Breakout rooms they are spread over.") var rooms = 10
    @Option(help: "Packets per second each user publishes.") var rate = 50
    @Option(help: "RTP payload bytes per packet (Opus at 20 ms is about 100).") var payloadBytes = 100
    @Option(help: "Audio receive slots per user.") var audioSlots = 3
    @Option(help: "Seconds each forwarding measurement lasts.") var seconds = 10
    @Option(help: "Event-loop threads for the simulated users.") var clientThreads = 1
    @Flag(help: "Print JSON instead of a table.") var json = false

    func validate() throws {
        guard users >= 2, rooms >= 1, users >= 2 * rooms else { throw ValidationError("--users must be at least twice --rooms") }
        guard (1...1000).contains(rate), (16...1200).contains(payloadBytes), audioSlots >= 1, seconds >= 1 else {
            throw ValidationError("--rate 1…1000, --payload-bytes 16…1200, --audio-slots ≥ 1, --seconds ≥ 1")
        }
    }

    func run() async throws {
        let server = try ServerUnderTest(folder: try ServerUnderTest.freshFolder(), arguments: [])
        defer { server.stop() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let session = "Media \(UUID().uuidString.prefix(8))"
        let host = try await joinHost(session, server: server, group: group)
        let participants = try await joinUsers(users, server: server, group: group, session: { _ in session })
        let peers = try await MediaBenchPeers.connect(participants, audioSlots: audioSlots, payloadBytes: payloadBytes, group: group)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for user in participants { tasks.addTask { try await user.request("publish", #""media":["audio"]"#) } }
            try await tasks.waitForAll()
        }

        // Rooms: user i in room i % rooms.
        try await host.request("createRooms", #""count":\#(rooms)"#)
        let roomIDs = try await Self.roomIDs(of: host)
        let before = (0..<users).map { $0 % rooms }
        try await assign(before, participants: participants, roomIDs: roomIDs, host: host)
        peers.startSending(rate: rate)
        try await settle(peers, rooms: before)
        let sfu = try await measure(peers, cpu: { server.cpuSeconds })
        let crossed = Self.crossings(sfu.heard, rooms: before)

        // The move: everyone to room (i / rooms) % rooms, among users of every other room.
        let after = (0..<users).map { ($0 / rooms) % rooms }
        let (moveLatencies, unmoved) = try await move(peers, from: before, to: after, participants: participants, roomIDs: roomIDs, host: host)
        peers.stopSending()

        // The floor: the same fan-out the server was measured with, through the bare relay.
        let relay = try MediaRelayProcess(fanout: Self.fanout(sfu.heard))
        defer { relay.stop() }
        try await peers.useRelay(try SocketAddress(ipAddress: "127.0.0.1", port: relay.port))
        try await Task.sleep(for: .milliseconds(200))
        peers.startSending(rate: rate)
        try await Task.sleep(for: .seconds(1))
        let floor = try await measure(peers, cpu: { relay.cpuSeconds })
        await peers.close()

        var report = Report(scenario: "media")
        report.add("session", "\(users) users in \(rooms) rooms, each publishing \(rate) audio packets/s of \(payloadBytes) bytes, \(audioSlots) audio slots each")
        report.add("caucus serve: published", "\(Int(sfu.sentPerSecond)) packets/s")
        report.add("caucus serve: forwarded", "\(Int(sfu.perSecond)) packets/s")
        report.add("caucus serve: CPU per forwarded packet", (sfu.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("bare UDP relay: published", "\(Int(floor.sentPerSecond)) packets/s")
        report.add("bare UDP relay: forwarded", "\(Int(floor.perSecond)) packets/s")
        report.add("bare UDP relay: CPU per forwarded packet", (floor.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("CPU per packet, caucus serve / relay", (sfu.cpuPerPacket / floor.cpuPerPacket).formatted(decimals: 2) + "×")
        report.add("users who heard another room", "\(crossed)")
        report.add("move sent → first audio from the new room, p50", milliseconds: moveLatencies.percentile(50))
        report.add("move sent → first audio from the new room, p99", milliseconds: moveLatencies.percentile(99))
        report.add("users with no audio from the new room within 10 s", "\(unmoved)")
        report.print(json: json)
        if crossed > 0 { throw BenchError("\(crossed) users heard someone outside their room") }
    }

    // MARK: - Steps

    private func assign(_ rooms: [Int], participants: [BenchUser], roomIDs: [Int], host: BenchUser) async throws {
        for (room, id) in roomIDs.enumerated() {
            let members = participants.indices.filter { rooms[$0] == room }.map { "\(participants[$0].userID)" }
            try await host.request("assign", #""users":[\#(members.joined(separator: ","))],"room":\#(id)"#)
        }
    }

    /// Until every user hears only its own room (and hears someone), for at least a second.
    private func settle(_ peers: MediaBenchPeers, rooms: [Int]) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            _ = try await peers.each { $0.resetCounts() }
            try await Task.sleep(for: .seconds(1))
            let heard = try await peers.each { $0.publishersHeard }
            if heard.allSatisfy({ !$0.isEmpty }), Self.crossings(heard, rooms: rooms) == 0 { return }
        }
        throw BenchError("the users did not come to hear their own rooms within 30 s")
    }

    struct Window {
        /// Packets the users sent, per second (the generator's real rate, below the nominal one
        /// when it falls behind).
        var sentPerSecond: Double
        var perSecond: Double
        var cpuPerPacket: Double
        /// By user, whose audio it received.
        var heard: [Set<Int>]
    }

    private func measure(_ peers: MediaBenchPeers, cpu: () -> Double?) async throws -> Window {
        _ = try await peers.each { $0.resetCounts() }
        let clock = ContinuousClock()
        let (started, cpuBefore) = (clock.now, cpu())
        try await Task.sleep(for: .seconds(seconds))
        let counts = try await peers.each { ($0.received, $0.publishersHeard, $0.sent) }
        let (elapsed, cpuAfter) = (clock.now - started, cpu())
        let received = counts.reduce(0) { $0 + $1.0 }
        guard received > 0, let cpuBefore, let cpuAfter else { throw BenchError("nothing was forwarded") }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sent = counts.reduce(0) { $0 + $1.2 }
        return Window(
            sentPerSecond: Double(sent) / seconds, perSecond: Double(received) / seconds, cpuPerPacket: (cpuAfter - cpuBefore) / Double(received), heard: counts.map(\.1))
    }

    /// Moves everyone at once (one `assign` per room, sent together) and waits for each user's
    /// first packet from a publisher of its new room it did not hear before.
    private func move(
        _ peers: MediaBenchPeers, from before: [Int], to after: [Int], participants: [BenchUser], roomIDs: [Int], host: BenchUser
    ) async throws -> (Latencies, unmoved: Int) {
        let newcomers = (0..<users).map { user in
            Set((0..<users).filter { after[$0] == after[user] && before[$0] != before[user] })
        }
        _ = try await peers.each { peer in peer.await(publishers: newcomers[peer.index]) }
        let sentAt = try await withThrowingTaskGroup(of: (Int, NIODeadline).self) { tasks in
            for (room, id) in roomIDs.enumerated() {
                let members = participants.indices.filter { after[$0] == room }
                let ids = members.map { "\(participants[$0].userID)" }.joined(separator: ",")
                tasks.addTask {
                    let sent = NIODeadline.now()
                    try await host.request("assign", #""users":[\#(ids)],"room":\#(id)"#)
                    return (room, sent)
                }
            }
            var sentAt: [Int: NIODeadline] = [:]
            for try await (room, sent) in tasks { sentAt[room] = sent }
            return sentAt
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        var firsts: [NIODeadline?] = []
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            firsts = try await peers.each { $0.firstAwaitedAt }
        } while firsts.contains(nil) && clock.now < deadline
        var latencies = Latencies()
        for (user, first) in firsts.enumerated() {
            guard let first, let sent = sentAt[after[user]] else { continue }
            latencies.record(.nanoseconds(Int64(first.uptimeNanoseconds) - Int64(sent.uptimeNanoseconds)))
        }
        return (latencies, firsts.filter { $0 == nil }.count)
    }

    // MARK: - Helpers

    /// Users who heard a publisher of another room.
    private static func crossings(_ heard: [Set<Int>], rooms: [Int]) -> Int {
        heard.enumerated().filter { user, publishers in publishers.contains { rooms[$0] != rooms[user] } }.count
    }

    /// By publisher, who received its audio.
    private static func fanout(_ heard: [Set<Int>]) -> [Int: [Int]] {
        var fanout: [Int: [Int]] = [:]
        for (subscriber, publishers) in heard.enumerated() {
            for publisher in publishers { fanout[publisher, default: []].append(subscriber) }
        }
        return fanout
    }

    private static func roomIDs(of host: BenchUser) async throws -> [Int] {
        let reply = try await host.request("getSnapshot")
        let object = try JSONSerialization.jsonObject(with: Data(reply.readableBytesView)) as? [String: Any]
        let snapshot = (object?["result"] as? [String: Any])?["snapshot"] as? [String: Any]
        let rooms = ((snapshot?["breakout"] as? [String: Any])?["rooms"] as? [[String: Any]]) ?? []
        let ids = rooms.compactMap { $0["id"] as? Int }
        guard !ids.isEmpty else { throw BenchError("no rooms in the snapshot") }
        return ids
    }
}
