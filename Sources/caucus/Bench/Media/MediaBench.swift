import ArgumentParser
import CaucusServer
import Foundation
import NIOCore
import NIOPosix

/// `caucus bench media`: a breakout with media. Synthetic users of the client-role stack
/// (`MediaClientPeer`) join one session and publish audio and/or video in the main session;
/// the host plans the rooms, pre-assigns everyone and starts. The bench times, for every user,
/// the host's `start` to the first audio packet from its new room and to the first keyframe
/// in each of its video slots; then what the server forwards in the rooms and its CPU time per
/// forwarded packet, and the same for a bare SwiftNIO UDP relay with the same fan-out (the
/// floor, in the same run).
struct MediaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media", abstract: "A breakout started with media flowing, through the server's router and a bare UDP relay.")

    @Option(help: "Users besides the host, all moved into rooms.") var users = 200
    @Option(help: "Breakout rooms (default 10, or as many as --room-size needs).") var rooms: Int?
    @Option(help: "The most users in one room; users are spread evenly.") var roomSize: Int?
    @Option(help: "How many of each room's users publish (default: all).") var publishersPerRoom: Int?
    @Flag(inversion: .prefixedNo, help: "Publishers send audio.") var audio = true
    @Flag(inversion: .prefixedNo, help: "Publishers send video.") var video = false
    @Option(help: "Audio packets per second each publisher sends.") var rate = 50
    @Option(help: "RTP payload bytes per audio packet on average (Opus at 20 ms is about 100; each packet varies by a quarter, as Opus's do).") var payloadBytes = 100
    @Option(help: "Video frames per second each publisher sends.") var frameRate = 15
    @Option(help: "RTP payload bytes per video packet.") var videoBytes = 1000
    @Option(help: "RTP packets per video frame (a frame's packets leave together, as an encoder's do).") var videoPackets = 1
    @Option(help: "Audio receive slots per user.") var audioSlots = 3
    @Option(help: "Video receive slots per user.") var videoSlots = 4
    @Option(help: "Speaker turns in the main session before the start, 1.5 s each: one publisher at a time speaks (RFC 6464 levels), and the routing holds of the new orders are reported.")
    var speakerTurns = 0
    @Option(help: "Seconds each forwarding measurement lasts.") var seconds = 10
    @Option(help: "Seconds to wait for every user's new room after the start.") var moveTimeout = 15
    @Option(help: "Event-loop threads for the simulated users.") var clientThreads = 1
    @Flag(help: "Also measure recording every room: a window recording, then one not recording again (CPU per packet against the mean of the windows around it, disk written).") var record = false
    @Option(help: "With --record: how many rounds of a window recording and one not.") var recordRounds = 3
    @Flag(help: "Print JSON instead of a table.") var json = false

    func shape() throws(MediaBenchShape.Refusal) -> MediaBenchShape {
        var kinds: MediaBenchShape.Kinds = []
        if audio { kinds.insert(.audio) }
        if video { kinds.insert(.video) }
        return try MediaBenchShape(
            users: users, rooms: rooms ?? (roomSize == nil ? 10 : nil), roomSize: roomSize, publishersPerRoom: publishersPerRoom, kinds: kinds,
            audioSlots: audioSlots, videoSlots: videoSlots)
    }

    func validate() throws {
        do { _ = try shape() } catch { throw ValidationError(error.description) }
        guard (1...1000).contains(rate), (1...120).contains(frameRate), (16...1200).contains(payloadBytes), (16...1200).contains(videoBytes),
            (1...16).contains(videoPackets), seconds >= 1, moveTimeout >= 1, clientThreads >= 1, (0...100).contains(speakerTurns),
            (1...20).contains(recordRounds)
        else {
            throw ValidationError(
                "--rate 1…1000, --frame-rate 1…120, --payload-bytes and --video-bytes 16…1200, --video-packets 1…16, --speaker-turns 0…100, --record-rounds 1…20, --seconds, --move-timeout and --client-threads ≥ 1")
        }
    }

    func run() async throws {
        let shape = try shape()
        let folder = try ServerUnderTest.freshFolder()
        let server = try ServerUnderTest(folder: folder, arguments: [], ownsFolder: true)
        defer { server.stop() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let session = "Media \(UUID().uuidString.prefix(8))"
        let host = try await joinHost(session, server: server, group: group)
        let participants = try await joinUsers(shape.users, server: server, group: group, session: { _ in session })
        progress("\(participants.count) users joined; connecting their media")
        let beforeMedia = try await ServerMetricsScrape.read(server)
        let peers = try await MediaBenchPeers.connect(participants, shape: shape, audioBytes: payloadBytes, video: (videoBytes, videoPackets), group: group)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (user, kinds) in zip(participants, shape.publishes) where !kinds.isEmpty {
                let media = [kinds.contains(.audio) ? #""audio""# : nil, kinds.contains(.video) ? #""video""# : nil].compactMap { $0 }
                tasks.addTask { try await user.request("publish", #""media":[\#(media.joined(separator: ","))]"#) }
            }
            try await tasks.waitForAll()
        }
        peers.startSending(audioRate: audio ? rate : 0, frameRate: video ? frameRate : 0)
        let steps = MediaBenchSteps(shape: shape, peers: peers, seconds: seconds)
        try await steps.settle(inRooms: false)
        var beforeTurns: ServerMetricsScrape?
        if speakerTurns > 0 {
            // The publications' routing done first, so that the turns' holds are their own.
            _ = try await ServerMetricsScrape.waitForQuiet(MediaMetricNames.routingUpdateDuration, on: server)
            beforeTurns = try await ServerMetricsScrape.read(server)
            try await steps.speakerTurns(speakerTurns, turn: .milliseconds(1_500))
            progress("\(speakerTurns) speaker turns taken")
        }
        // The start is timed on its own: what the publications asked of the routing is done
        // first (a teacher starts minutes after the class began publishing, not at once).
        let (waited, quiet) = try await ServerMetricsScrape.waitForQuiet(MediaMetricNames.routingUpdateDuration, on: server)
        let routing = quiet ? "routing quiet after" : "routing still busy after (starting anyway)"
        progress("media flowing in the main session, \(routing) \((waited / .milliseconds(1)).formatted(decimals: 0)) ms; planning \(shape.rooms) rooms and starting")
        let beforeStart = try await ServerMetricsScrape.read(server)

        try await plan(shape, participants: participants, host: host)
        let move = try await steps.start(host: host, timeout: .seconds(moveTimeout))
        let heard = try await steps.settle(inRooms: true)
        let afterStart = try await ServerMetricsScrape.read(server)
        progress("everyone in their rooms; measuring the server, then the relay")
        let sfu = try await steps.measure(cpu: { server.cpuTimes })
        var recording: MediaBenchRecording?
        if record {
            progress("recording every room")
            recording = try await MediaBenchRecording.measure(
                host: host, folder: folder, steps: steps, before: sfu, rounds: recordRounds, cpu: { server.cpuTimes },
                writerCPU: { try await ServerMetricsScrape.read(server).value(MediaBenchRecording.writerCPUSeries) })
        }
        peers.stopSending()

        // The floor: the same fan-out the server was measured with, through the bare relay.
        let relay = try MediaRelayProcess(fanout: Self.fanout(heard, shape: shape))
        defer { relay.stop() }
        progress("measuring the relay")
        try await peers.useRelay(try SocketAddress(ipAddress: "127.0.0.1", port: relay.port))
        try await Task.sleep(for: .milliseconds(200))
        peers.startSending(audioRate: audio ? rate : 0, frameRate: video ? frameRate : 0)
        try await Task.sleep(for: .seconds(1))
        let floor = try await steps.measure(cpu: { relay.cpuTimes })
        await peers.close()

        var report = Report(scenario: "media")
        report.add("session", describe(shape))
        report.add("caucus serve: published", "\(Int(sfu.sentPerSecond)) packets/s")
        report.add("caucus serve: forwarded", "\(Int(sfu.perSecond)) packets/s")
        report.add("caucus serve: CPU per forwarded packet", (sfu.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("bare UDP relay: published", "\(Int(floor.sentPerSecond)) packets/s")
        report.add("bare UDP relay: forwarded", "\(Int(floor.perSecond)) packets/s")
        report.add("bare UDP relay: CPU per forwarded packet", (floor.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("CPU per packet, caucus serve / relay", (sfu.cpuPerPacket / floor.cpuPerPacket).formatted(decimals: 2) + "×")
        report.add("… of it in user space: caucus serve, relay", [sfu, floor].map { ($0.userCPUPerPacket * 1e6).formatted(decimals: 2) }.joined(separator: ", ") + " µs")
        report.add("… in the kernel: caucus serve, relay", [sfu, floor].map { ($0.systemCPUPerPacket * 1e6).formatted(decimals: 2) }.joined(separator: ", ") + " µs")
        report.add("user space beyond the relay's, per forwarded packet", ((sfu.userCPUPerPacket - floor.userCPUPerPacket) * 1e6).formatted(decimals: 2) + " µs")
        recording?.report(rooms: shape.rooms, into: &report)
        report.add("bench process CPU while the server forwarded", sfu.benchCPUShare.formatted(decimals: 2) + " cores")
        report.add("users who heard another room", "\(Self.crossings(heard, shape: shape))")
        Self.reportRoutingUpdates("while the users connected and began publishing", between: beforeMedia, and: beforeTurns ?? beforeStart, into: &report)
        if let beforeTurns {
            // Until the routing was quiet again after the last turn.
            Self.reportRoutingUpdates("while \(speakerTurns) speakers took turns in the main session", between: beforeTurns, and: beforeStart, into: &report)
            let switches = "caucus_media_slot_switches_total"
            report.add("audio slots switched while they took turns", "\(Int(beforeStart.value(switches) - beforeTurns.value(switches)))")
        }
        Self.reportRoutingUpdates("for the plan and the start", between: beforeStart, and: afterStart, into: &report)
        move.report(into: &report, shape: shape, timeout: moveTimeout)
        report.print(json: json)
        let crossed = Self.crossings(heard, shape: shape)
        if crossed > 0 { throw BenchError("\(crossed) users heard someone outside their room") }
    }

    /// The media loop's time in routing updates (forwarding waits on that loop meanwhile):
    /// each hold of the loop by routing between two readings of the server's metrics.
    private static func reportRoutingUpdates(
        _ when: String, between earlier: ServerMetricsScrape, and later: ServerMetricsScrape, into report: inout Report
    ) {
        let name = MediaMetricNames.routingUpdateDuration
        let updates = later.histogram(name, since: earlier)
        let longest = updates.largestAtMost.map { "longest ≤ \(($0 * 1000).formatted(decimals: 0)) ms" } ?? "longest above the last bucket"
        let long = later.histogram(name, since: earlier, above: 0.005)
        report.add(
            "routing updates \(when)",
            "\(updates.count), \((updates.sum * 1000).formatted(decimals: 1)) ms in all, "
                + (updates.count == 0 ? "none" : "\(longest), \(long) over 5 ms"))
    }

    // MARK: - Steps

    /// The pre-list, each room's users pre-assigned to it, committed.
    private func plan(_ shape: MediaBenchShape, participants: [BenchUser], host: BenchUser) async throws {
        let names = (0..<shape.rooms).map { #""Room \#($0 + 1)""# }
        try await host.request("addToPreList", #""names":[\#(names.joined(separator: ","))]"#)
        for room in 0..<shape.rooms {
            let members = shape.members(of: room).map { "\(participants[$0].userID)" }
            try await host.request("preAssign", #""users":[\#(members.joined(separator: ","))],"name":\#(names[room])"#)
        }
        try await host.request("commit")
        try await quiet(after: host, participants: participants)
    }

    /// Waits until every user has the host's events so far (the plan's: each `preAssign` and
    /// the commit reach all thousand users), so the start is timed on its own, as a teacher's
    /// would be, not behind the delivery of the plan made just before it.
    private func quiet(after host: BenchUser, participants: [BenchUser]) async throws {
        let target = host.lastSeq
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while participants.contains(where: { $0.lastSeq < target }) {
            guard clock.now < deadline else { throw BenchError("the users did not receive the committed plan within 30 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func describe(_ shape: MediaBenchShape) -> String {
        let sizes = shape.roomSizes.lowerBound == shape.roomSizes.upperBound ? "\(shape.roomSizes.lowerBound)" : "\(shape.roomSizes.lowerBound)–\(shape.roomSizes.upperBound)"
        var parts = ["1 host + \(shape.users) users into \(shape.rooms) rooms of \(sizes)", "\(shape.publisherCount) publish"]
        if audio { parts.append("audio \(rate) packets/s of \(payloadBytes) bytes, \(shape.audioSlots) audio slots") }
        if video { parts.append("video \(frameRate) frames/s of \(videoPackets) × \(videoBytes) bytes, \(shape.videoSlots) video slots") }
        return parts.joined(separator: "; ")
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("media: \(text)\n".utf8))
    }

    // MARK: - Helpers

    /// Users who heard or saw a publisher of another room.
    static func crossings(_ heard: [MediaBenchSteps.Heard], shape: MediaBenchShape) -> Int {
        heard.enumerated().filter { user, heard in
            heard.audio.union(heard.video).contains { shape.placement[$0] != shape.placement[user] }
        }.count
    }

    /// By publisher stream (SSRC), who received it.
    static func fanout(_ heard: [MediaBenchSteps.Heard], shape: MediaBenchShape) -> [Int: [Int]] {
        var fanout: [Int: [Int]] = [:]
        for (subscriber, heard) in heard.enumerated() {
            for publisher in heard.audio { fanout[Int(MediaBenchShape.ssrc(of: publisher, .audio)), default: []].append(subscriber) }
            for publisher in heard.video { fanout[Int(MediaBenchShape.ssrc(of: publisher, .video)), default: []].append(subscriber) }
        }
        return fanout
    }
}
