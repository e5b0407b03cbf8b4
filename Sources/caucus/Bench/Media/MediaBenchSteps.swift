import Foundation
import NIOCore

/// The steps of `caucus bench media` that wait on every user's packets: settling, the start
/// and its arrivals, a forwarding measurement.
struct MediaBenchSteps {
    let shape: MediaBenchShape
    let peers: MediaBenchPeers
    let seconds: Int

    /// Whose audio and video one user received.
    struct Heard: Sendable {
        var audio: Set<Int>
        var video: Set<Int>
    }

    /// Until, for a second, every user receives something of each kind published (in its room,
    /// where its room has it, and nothing from another room). Returns what each received then.
    @discardableResult
    func settle(inRooms: Bool) async throws -> [Heard] {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var (unsettled, crossed, silentRooms) = (0, 0, 0)
        while clock.now < deadline {
            _ = try await peers.each { $0.resetCounts() }
            try await Task.sleep(for: .seconds(1))
            let heard = try await peers.each { Heard(audio: $0.heardAudio, video: $0.sawVideo) }
            let waiting = heard.indices.filter { !settled(heard[$0], user: $0, inRooms: inRooms) }
            unsettled = waiting.count
            silentRooms = inRooms ? Dictionary(grouping: waiting) { shape.placement[$0] }.filter { $0.value.count == shape.members(of: $0.key).count }.count : 0
            crossed = inRooms ? MediaBench.crossings(heard, shape: shape) : 0
            if unsettled == 0, crossed == 0 { return heard }
        }
        let dropped = try await peers.each { $0.dropped }
        let reasons = Dictionary(grouping: dropped.compactMap(\.closed)) { $0 }.map { "\($0.value.count) × \($0.key)" }
        let closed = reasons.isEmpty ? "0" : reasons.joined(separator: ", ")
        let replays = dropped.reduce(0) { $0 + $1.counters.replays }
        let failures = dropped.reduce(0) { $0 + $1.counters.authenticationFailures }
        throw BenchError(
            "the users did not come to receive \(inRooms ? "their own rooms" : "the main session") within 60 s: "
                + "\(unsettled) received nothing of a kind they should (\(silentRooms) rooms wholly), \(crossed) received another room; "
                + "\(closed) users' media closed; their stacks dropped \(replays) replays and \(failures) packets that failed authentication")
    }

    private func settled(_ heard: Heard, user: Int, inRooms: Bool) -> Bool {
        for (kind, received) in [(MediaBenchShape.Kinds.audio, heard.audio), (.video, heard.video)] {
            let expected = inRooms ? !shape.roommates(of: user, publishing: kind).isEmpty : shape.hasPublishers(of: kind, besides: user)
            if expected, received.isEmpty { return false }
        }
        return true
    }

    /// Audio publishers speak one at a time in the main session, `turns` turns of `turn` each
    /// (levels at −10 dBov, everyone else silent: each turn a new loudest speaker, so a new
    /// order for everyone there); then no packet carries a level again.
    func speakerTurns(_ turns: Int, turn: Duration) async throws {
        let speakers = shape.publishes.indices.filter { shape.publishes[$0].contains(.audio) }
        guard turns > 0, !speakers.isEmpty else { return }
        for index in 0..<turns {
            // Spread over the publishers (a prime stride).
            let speaker = speakers[(index * 7_919) % speakers.count]
            _ = try await peers.each { $0.audioLevel = $0.index == speaker ? 10 : 127 }
            try await Task.sleep(for: turn)
        }
        _ = try await peers.each { $0.audioLevel = nil }
    }

    /// The host starts the breakout (every user pre-assigned); waits until every user has its
    /// new room's audio and a keyframe in each video slot its room can fill, or `timeout`.
    func start(host: BenchUser, timeout: Duration) async throws -> MediaBenchArrivals {
        let shape = self.shape
        _ = try await peers.each { peer in
            peer.expectRoom(
                audio: shape.roommates(of: peer.index, publishing: .audio), video: shape.roommates(of: peer.index, publishing: .video),
                fillableVideoSlots: shape.fillableVideoSlots(of: peer.index))
        }
        let ownBefore = Self.ownCPU()
        // Timed from when the request leaves for the server: the users' one loop may be busy
        // with their packets when the host asks.
        let (_, started) = try await host.timedRequest("start", #""autoAssign":true"#)
        let replied = NIODeadline.now()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var results: [MediaBenchMove.Result] = []
        repeat {
            try await Task.sleep(for: .milliseconds(100))
            results = try await peers.each { $0.moveResult }
        } while !results.allSatisfy(\.isComplete) && clock.now < deadline
        let waited = Double(Int64(NIODeadline.now().uptimeNanoseconds) - Int64(started.uptimeNanoseconds)) / 1e9
        let benchCPUShare = ((Self.ownCPU() ?? 0) - (ownBefore ?? 0)) / waited
        let requests = try await peers.each { $0.keyframeRequests }
        return MediaBenchArrivals(
            started: started, replied: replied, results: results, keyframeRequests: requests.reduce(0, +), benchCPUShare: benchCPUShare)
    }

    struct Window {
        /// Packets the users sent, per second (the generator's real rate, below the nominal one
        /// when it falls behind).
        var sentPerSecond: Double
        var perSecond: Double
        /// The measured process's CPU time in the window (user and system), and the packets the
        /// users received in it.
        var cpu: ProcessCPU.Times
        var packets: Int
        /// The bench process's own CPU time per second of the window: the simulated users' cost.
        var benchCPUShare: Double

        var cpuSeconds: Double { cpu.total }
        var cpuPerPacket: Double { cpu.total / Double(packets) }
        /// Of ``cpuPerPacket``, the time in the process's own code (user) and in the kernel.
        var userCPUPerPacket: Double { cpu.user / Double(packets) }
        var systemCPUPerPacket: Double { cpu.system / Double(packets) }
    }

    /// `seconds` of forwarding, the users only counting what arrives.
    func measure(cpu: () -> ProcessCPU.Times?) async throws -> Window {
        _ = try await peers.each { peer in
            peer.inspecting = false
            peer.resetCounts()
        }
        let clock = ContinuousClock()
        let (started, cpuBefore, ownBefore) = (clock.now, cpu(), Self.ownCPU())
        try await Task.sleep(for: .seconds(seconds))
        let counts = try await peers.each { peer in
            peer.inspecting = true
            return (peer.received, peer.sent)
        }
        let (elapsed, cpuAfter, ownAfter) = (clock.now - started, cpu(), Self.ownCPU())
        let received = counts.reduce(0) { $0 + $1.0 }
        guard received > 0, let cpuBefore, let cpuAfter else { throw BenchError("nothing was forwarded") }
        let seconds = elapsed.milliseconds / 1000
        let sent = counts.reduce(0) { $0 + $1.1 }
        return Window(
            sentPerSecond: Double(sent) / seconds, perSecond: Double(received) / seconds,
            cpu: ProcessCPU.Times(user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system), packets: received, benchCPUShare: ((ownAfter ?? 0) - (ownBefore ?? 0)) / seconds)
    }

    /// The bench process's own CPU time: the simulated users' cost.
    private static func ownCPU() -> Double? { ProcessCPU.seconds(of: ProcessInfo.processInfo.processIdentifier) }
}

/// What the start brought each user, against the time the host sent it.
struct MediaBenchArrivals {
    let started: NIODeadline
    let replied: NIODeadline
    let results: [MediaBenchMove.Result]
    let keyframeRequests: Int
    /// The bench process's CPU time per second while it waited for the arrivals: how busy
    /// the simulated users were (near 1 with one client thread, their times run late).
    let benchCPUShare: Double

    func report(into report: inout Report, shape: MediaBenchShape, timeout: Int) {
        report.add("start sent → host's reply", milliseconds: milliseconds(replied))
        report.add("bench process CPU while the users waited for their rooms", benchCPUShare.formatted(decimals: 2) + " cores")
        if shape.audioSlots > 0 {
            var audio = Latencies()
            for result in results { if let first = result.firstAudio { audio.record(.nanoseconds(Int64(first.uptimeNanoseconds) - Int64(started.uptimeNanoseconds))) } }
            add(audio, "start sent → first audio from the new room", into: &report)
            report.add("users with no audio from the new room within \(timeout) s", "\(results.filter(\.audioMissing).count)")
            report.add("users whose audio slots kept a roommate (nothing to switch, not timed)", "\(results.filter(\.audioKept).count)")
        }
        if shape.videoSlots > 0 {
            var video = Latencies()
            for result in results {
                for first in result.videoKeyframes { video.record(.nanoseconds(Int64(first.uptimeNanoseconds) - Int64(started.uptimeNanoseconds))) }
            }
            add(video, "start sent → first keyframe in each video slot", into: &report)
            report.add("video slots with no keyframe from the new room within \(timeout) s", "\(results.reduce(0) { $0 + $1.videoMissing })")
            report.add("video slots that kept a roommate (nothing to switch)", "\(results.reduce(0) { $0 + $1.videoKept })")
            report.add("keyframe requests the publishers received", "\(keyframeRequests)")
        }
    }

    private func add(_ latencies: Latencies, _ name: String, into report: inout Report) {
        for percentile in [50.0, 95, 99] { report.add("\(name), p\(Int(percentile))", milliseconds: latencies.percentile(percentile)) }
        report.add("\(name), max", milliseconds: latencies.max)
        report.add("\(name), count", "\(latencies.count)")
    }

    private func milliseconds(_ time: NIODeadline) -> Double { Double(Int64(time.uptimeNanoseconds) - Int64(started.uptimeNanoseconds)) / 1e6 }
}
