import Caucus
import CaucusCore
import Foundation
import NIOConcurrencyHelpers
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every stack with every other, in one session of a real `caucus serve`: two SDK clients
/// (Ann and Ben, publishing a real Opus tone and real VP8 of one colour through CaucusCodecs),
/// an aiortc user (Abe) and a headless Chromium user (Cora, the browser's fake microphone and
/// camera), the last two run by `Tests/MediaInterop/crossstack_peers.py`. Each of the four
/// decodes each of the other three's audio (its tone within 2 %) and video (its colour, at the
/// size it was sent) in the main session, in a breakout room holding all four, after a cut of
/// both of Ben's paths (his WebSocket and every datagram of his media, nobody else's), after a
/// server restart (SIGKILL, same data), and back in the main session once the room is closed.
/// After the cut and the restart, each direction of Ben's (and after the restart Ann's) media
/// must be back within 3 s, same room: the figures are printed and asserted.
@Suite(.serialized) struct CrossStackMediaTests {
    typealias Publication = CrossStackPeers.Publication

    /// Who publishes what; every receiver recognises the others by it.
    static let palette: [String: Publication] = [
        "Ann": Publication(tone: 440, colour: [200, 40, 40], size: [TestPublisher.width, TestPublisher.height]),
        "Ben": Publication(tone: 660, colour: [40, 180, 60], size: [TestPublisher.width, TestPublisher.height]),
        "Abe": Publication(tone: 1040, colour: [40, 40, 220], size: [96, 64]),
        "Cora": Publication(tone: 520, colour: [230, 220, 40], size: [160, 120]),
    ]
    static let sdkUsers = ["Ann", "Ben"]
    static let scriptUsers: [(name: String, stack: CrossStackPeers.Stack)] = [("Abe", .aiortc), ("Cora", .chromium)]
    static var everyone: [String] { sdkUsers + scriptUsers.map(\.name) }
    /// The issue's bound on media coming back after a restart or a cut.
    static let resumeBound: Duration = .seconds(3)

    @Test func fourStacksDecodeEachOtherThroughABreakoutACutAndARestart() async throws {
        // The server binds 127.0.0.1 and announces 127.0.0.2, where a relay that can cut one
        // client's path listens, on the same port.
        let relay = try await LossyUDPRelay.start(listen: "127.0.0.2", port: 0, upstream: "127.0.0.1", downLoss: 0, seed: 1)
        let folder = temporaryFolder(prefix: "caucus-crossstack-")
        let arguments = [
            "--media-address", "127.0.0.2", "--media-bind-address", "127.0.0.1", "--media-port", String(relay.port),
            "--media-tcp-port", "off",
        ]
        var server = try await ServerProcess(dataDirectory: folder, arguments: arguments)
        // Ben's WebSocket has a proxy of its own (to cut); everyone else's shares one, so that
        // all follow the restarted server.
        let shared = try await TCPProxy.start(to: server.port)
        let bens = try await TCPProxy.start(to: server.port)
        let host = try await SDKMediaReconnectTests.client("Teacher", role: .host, via: shared, server)
        let ann = try await SDKMediaReconnectTests.client("Ann", via: shared, server)
        let ben = try await SDKMediaReconnectTests.client("Ben", via: bens, server)
        let sdk = ["Ann": ann, "Ben": ben]

        let peers = try CrossStackPeers()
        // Whatever fails, the script quits its browser.
        do {
            var ids = try await peers.start(
                webSocket: shared.url, session: "Studio", palette: Self.palette,
                users: try Self.scriptUsers.map { ($0.name, $0.stack, try server.token(session: "Studio")) })
            ids["Ann"] = try ann.id
            ids["Ben"] = try ben.id
            let users = Set(ids.values)
            print("CrossStackMediaTests: users \(ids.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.rawValue)" })")

            // Receiver → publisher → what the receiver's SDK delivered, from before the media
            // starts: the stream's first keyframe must be among it.
            var received: [String: [String: ReceivedMedia]] = [:]
            for (receiver, client) in sdk {
                for publisher in Self.everyone where publisher != receiver {
                    received[receiver, default: [:]][publisher] = ReceivedMedia(client.session, from: try #require(ids[publisher]))
                }
            }
            for client in [ann, ben] {
                try await client.session.audioHelper.start()
                try await client.session.videoHelper.start()
            }
            let publishers = try Self.sdkUsers.map { name in
                let sent = try #require(Self.palette[name])
                let colour = (UInt8(sent.colour[0]), UInt8(sent.colour[1]), UInt8(sent.colour[2]))
                return TestPublisher.start(try #require(sdk[name]).session, hertz: sent.tone, colour: colour, periodicKeyframes: false)
            }
            defer { publishers.forEach { $0.cancel() } }
            let checks = CrossStackChecks(received: received, peers: peers)

            try await checks.everyoneDecodes("in the main session")

            let room = try #require(try await host.session.breakoutRooms.create(count: 1).first)
            try await #require(host.session.subsessionManager).assign(Self.everyone.map { ids[$0]! }, to: room.id)
            try await eventually(seconds: 30, "all four in the room") {
                let snapshot = try ann.snapshot
                let others = snapshot.remoteUsers.filter { users.contains($0.id) }
                return snapshot.myself.location == .room(room.id) && others.count == 3 && others.allSatisfy { $0.location == .room(room.id) }
            }
            try await checks.everyoneDecodes("in the breakout room")

            // Both of Ben's paths go away at once, and come back.
            for client in [ann, ben] {
                try await client.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }
            }
            // When keyframe requests reach Ben's app (printed beside the figures: a late video
            // figure with no request before it points at the request, not the picture).
            let keyframeRequestTimes = NIOLockedValueBox<[ContinuousClock.Instant]>([])
            let keyframeRequests = ben.session.videoHelper.keyframeRequests
            let requestListener = Task { for await _ in keyframeRequests { keyframeRequestTimes.withLockedValue { $0.append(.now) } } }
            defer { requestListener.cancel() }
            let bensUfrags = bens.serverICEUfrags
            try #require(!bensUfrags.isEmpty, "no ICE ufrag seen in the answers to Ben")
            relay.cut(serverUfrags: bensUfrags)
            bens.cut(refusingNew: true)
            let cutAt = ContinuousClock.now
            try await ben.log.next(seconds: 30, "Ben reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
            try await Task.sleep(for: .milliseconds(500))
            // The cut was Ben's alone: his datagrams were dropped, and Ann still received the
            // others' media meanwhile.
            #expect(relay.counts.droppedByCut > 0, "nothing of Ben's media was cut")
            for publisher in ["Abe", "Cora"] {
                #expect(received["Ann"]?[publisher]?.firstArrival(of: .audio, since: cutAt + .milliseconds(300)) != nil,
                    "\(publisher)'s audio stopped reaching Ann while Ben's paths were cut")
            }
            relay.restore()
            bens.reopen()
            try await ben.log.next(seconds: 30, "Ben connected again") { $0.isConnectionState(.connected) ? true : nil }
            let benBack = ContinuousClock.now
            try await peers.mark()
            let cutFigures = try await checks.resumption(
                of: ["Ben"], sdkResumed: ["Ben": benBack, "Ann": benBack], scriptResumed: benBack, scriptMarked: .now)
            Self.expectWithinBound(cutFigures, "after the cut of Ben's paths")
            let requests = keyframeRequestTimes.withLockedValue { $0 }.filter { $0 >= benBack }
                .map { String(format: "%.2f", ($0 - benBack).seconds) }
            print("CrossStackMediaTests: keyframe requests reaching Ben's app after he resumed, at (s): \(requests)")
            // One new peer, asked once as it connects (and again only if a keyframe is lost).
            // A renewal that renewed itself, each new peer closing the one before, asked 7 to 50
            // times in the first quarter second, a new peer each time.
            #expect(requests.count <= 4, "Ben's media peer was renewed over and over: \(requests.count) keyframe requests")
            #expect(try ben.snapshot.myself.location == .room(room.id), "Ben in the same room after the cut")
            try await checks.everyoneDecodes("in the room after the cut of Ben's paths")

            // The server killed and started again on the same data: everyone resumes.
            server.kill(SIGKILL)
            for client in [ann, ben] {
                try await client.log.next(seconds: 30, "reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
            }
            server = try await ServerProcess(dataDirectory: folder, arguments: arguments)
            shared.retarget(to: server.port)
            bens.retarget(to: server.port)
            async let annResumed = ann.log.next(seconds: 30, "Ann connected again") {
                $0.isConnectionState(.connected) ? ContinuousClock.now : nil
            }
            async let benResumed = ben.log.next(seconds: 30, "Ben connected again") {
                $0.isConnectionState(.connected) ? ContinuousClock.now : nil
            }
            let sdkResumed = ["Ann": try await annResumed, "Ben": try await benResumed]
            // The script's users have no SDK: they take their seats back themselves, offer again,
            // and say so once their new peers are connected (their own reconnection is not timed).
            try await peers.resume(webSocket: shared.url)
            let scriptResumed = ContinuousClock.now
            let restartFigures = try await checks.resumption(
                of: ["Ann", "Ben"], sdkResumed: sdkResumed, scriptResumed: scriptResumed, scriptMarked: scriptResumed)
            Self.expectWithinBound(restartFigures, "after the server restart")
            for client in [ann, ben] {
                #expect(try client.snapshot.myself.location == .room(room.id), "the same room after the restart")
            }
            try await checks.everyoneDecodes("in the room after the server restart")

            try await host.session.breakoutRooms.destroyAll()
            try await eventually(seconds: 30, "all four back in the main session") {
                let snapshot = try ann.snapshot
                let others = snapshot.remoteUsers.filter { users.contains($0.id) }
                return snapshot.myself.location == .main && others.count == 3 && others.allSatisfy { $0.location == .main }
            }
            try await checks.everyoneDecodes("back in the main session after the breakout")

            publishers.forEach { $0.cancel() }
            for publisher in publishers { _ = try? await publisher.value }
        } catch {
            await peers.close()
            throw error
        }
        await peers.close()
        server.kill(SIGKILL)
        await shared.stop()
        await bens.stop()
        await relay.stop()
    }

    static func expectWithinBound(_ figures: [CrossStackChecks.Resumption], _ when: String) {
        print("CrossStackMediaTests: media back \(when):")
        for figure in figures.sorted(by: { $0.description < $1.description }) {
            print("  \(figure)")
            #expect((figure.seconds ?? .infinity) <= resumeBound.seconds, "\(when): \(figure), more than \(resumeBound)")
        }
    }
}
