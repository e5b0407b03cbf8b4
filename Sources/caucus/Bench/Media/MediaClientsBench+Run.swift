// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import Caucus
import CaucusCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MediaClientsBench {
    /// Runs the bench: joins the clients, starts their media, waits until everyone receives,
    /// then measures.
    func measure() async throws {
        let pattern = TestPattern(size: videoSize)
        let loop = try LoopedMedia.encode(tone: Tone(hertz: ClientMediaOptions.defaultTone), pattern: pattern, frameRate: frameRate)
        let server = try ServerUnderTest(folder: try ServerUnderTest.freshFolder(), arguments: [], ownsFolder: true)
        defer { server.stop() }
        let sessionName = "Media clients \(UUID().uuidString.prefix(8))"
        let members = (0..<clients).map(MediaClientsBenchClient.init)
        for client in members { try await client.join(server: server, sessionName: sessionName) }
        progress("\(clients) clients joined; starting their media")
        for client in members {
            let publishes = client.index < publisherCount
            try await client.startMedia(publishAudio: publishes && audio, publishVideo: publishes && video, decode: decode)
        }
        let sender = LoopedMediaSender(loop, publishers: members.prefix(publisherCount).map { $0.publisher(audio: audio, video: video) })
        try await settle(members)
        progress("every client receives what it should; measuring \(seconds) s")

        _ = members.map { $0.takeCounts() }
        let clock = ContinuousClock()
        let (started, cpuBefore, ownBefore) = (clock.now, server.cpuSeconds, ProcessCPU.seconds(of: ProcessInfo.processInfo.processIdentifier))
        let (inBefore, outBefore) = try await (Self.counter("caucus_media_rtp_received_total", server), Self.counter("caucus_media_rtp_forwarded_total", server))
        try await Task.sleep(for: .seconds(seconds))
        let counts = members.map { $0.takeCounts() }
        let elapsed = (clock.now - started).inSeconds
        let (cpuAfter, ownAfter) = (server.cpuSeconds, ProcessCPU.seconds(of: ProcessInfo.processInfo.processIdentifier))
        let (inAfter, outAfter) = try await (Self.counter("caucus_media_rtp_received_total", server), Self.counter("caucus_media_rtp_forwarded_total", server))
        await sender.stop()
        for client in members { await client.stop() }

        var report = Report(scenario: "media-clients")
        report.add("session", describe(loop))
        let serverCores = ((cpuAfter ?? 0) - (cpuBefore ?? 0)) / elapsed
        let forwarded = Double(outAfter - outBefore) / elapsed
        let sentAudio = Double(counts.reduce(0) { $0 + $1.audioSent }) / elapsed
        let sentVideo = Double(counts.reduce(0) { $0 + $1.videoSent }) / elapsed
        let skipped = Double(counts.reduce(0) { $0 + $1.videoSkipped }) / elapsed
        report.add("frames sent by the clients", "\(Int(sentAudio)) audio/s, \(Int(sentVideo)) video/s (\(skipped.formatted(decimals: 1)) video/s missed: the sender was late)")
        report.add("RTP packets into the server (the clients' sent)", "\(Int(Double(inAfter - inBefore) / elapsed))/s")
        report.add("RTP packets out of the server (the clients' received)", "\(Int(forwarded))/s")
        for (kind, slots, perClient) in [("video", Self.videoSlots, counts.map(\.video)), ("audio", Self.audioSlots, counts.map(\.audio))]
        where kind == "video" ? video : audio {
            let totals = perClient.map { Double($0.values.reduce(0, +)) / elapsed }
            let streams = perClient.flatMap { $0.values.map { Double($0) / elapsed } }
            let received = perClient.map { Double($0.count) }
            let expected = (0..<clients).map { Double(Self.expectedStreams(of: $0, publishers: publisherCount, slots: slots)) }
            report.add("\(kind) frames/s received per client, median / p5", "\(totals.percentile(50).formatted(decimals: 1)) / \(totals.percentile(5).formatted(decimals: 1))")
            report.add("\(kind) frames/s per received stream, median / p5", "\(streams.percentile(50).formatted(decimals: 1)) / \(streams.percentile(5).formatted(decimals: 1))")
            report.add("\(kind) streams received per client, min (expected)", "\(Int(received.min() ?? 0)) (\(Int(expected.min() ?? 0)))")
        }
        report.add("frames that did not decode", decode ? "\(counts.reduce(0) { $0 + $1.undecodable })" : "not decoded (--no-decode)")
        report.add("caucus serve CPU", serverCores.formatted(decimals: 2) + " cores")
        report.add("caucus serve CPU per forwarded packet", (forwarded > 0 ? serverCores / forwarded * 1e6 : 0).formatted(decimals: 2) + " µs")
        report.add("bench process CPU (the clients)", (((ownAfter ?? 0) - (ownBefore ?? 0)) / elapsed).formatted(decimals: 2) + " cores")
        report.print(json: json)
    }

    /// Until, for a whole second, every client receives each kind published by anyone else;
    /// at most a minute.
    private func settle(_ members: [MediaClientsBenchClient]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var waiting = members.count
        while ContinuousClock.now < deadline {
            _ = members.map { $0.takeCounts() }
            try await Task.sleep(for: .seconds(1))
            let counts = members.map { $0.takeCounts() }
            waiting = zip(members, counts).filter { client, counts in
                let expectsAny = Self.expectedStreams(of: client.index, publishers: publisherCount, slots: 1) > 0
                return expectsAny && ((audio && counts.audio.isEmpty) || (video && counts.video.isEmpty))
            }.count
            if waiting == 0 { return }
        }
        throw BenchError("\(waiting) clients still received nothing of a kind published after 60 s")
    }

    private func describe(_ loop: LoopedMedia) -> String {
        var parts = ["\(clients) SDK clients in one session, \(publisherCount) publish"]
        if audio { parts.append("Opus tone, 20 ms frames (a 1 s loop encoded once)") }
        if video { parts.append("VP8 test pattern \(videoSize) at \(frameRate) fps (a \(loop.video.count)-frame loop encoded once)") }
        parts.append(decode ? "every frame received decoded" : "nothing decoded")
        return parts.joined(separator: "; ")
    }

    /// A counter of the server's `/metrics`.
    private static func counter(_ name: String, _ server: ServerUnderTest) async throws -> Int64 {
        Int64(try await ServerMetricsScrape.read(server).value(name))
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("media-clients: \(text)\n".utf8))
    }
}
#endif
