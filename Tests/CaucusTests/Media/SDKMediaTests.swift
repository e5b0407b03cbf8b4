import Caucus
import CaucusCore
import Foundation
import Testing

/// The SDK's media end to end: two SDK clients of one session on a real server, over UDP
/// with ICE, DTLS-SRTP and the server's forwarding. Ann publishes a real Opus tone and real
/// VP8 (CaucusCodecs); Ben receives her frames by user and decodes them with libopus and
/// libvpx. Then a breakout puts both in one room (the media follows, no app code), and a
/// move apart stops it.
@Suite(.serialized) struct SDKMediaTests {
    @Test func aToneAndAPictureReachAnotherSDKClientAndFollowTheRooms() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let annID = try ann.id
        let benID = try ben.id

        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        _ = try await ben.log.next("Ann's publication") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.audio, .video] { true } else { nil }
        }
        #expect(try ben.snapshot.remoteUsers.first { $0.id == annID }?.publishing == [.audio, .video])
        #expect(try ann.snapshot.remoteUsers.first { $0.id == benID }?.publishing == [])

        let received = ReceivedMedia(ben.session, from: annID)
        let speakers = Collected(ben.session.audioHelper.activeSpeakers)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }

        // In the main session.
        try await received.waitFor(audio: 60, video: 5, "Ann's tone and picture in the main session")
        try Self.expectToneAndColour(received, after: 0, "main session")
        // Her frames carry their level: the server ranks her, and Ben's SDK says so; her
        // frames reach him with it.
        try await eventually("Ann among the active speakers Ben is told of") { speakers.all.contains { $0.contains(annID) } }
        #expect(received.audio().allSatisfy { $0.audioLevel == TestPublisher.audioLevel })

        // Both moved into one room: the slots follow, the media still arrives.
        let rooms = try await host.session.breakoutRooms.create(count: 2)
        let manager = try #require(host.session.subsessionManager)
        try await manager.assign([annID, benID], to: rooms[0].id)
        _ = try await ben.log.next("Ben's move") { if case .usersMoved = $0 { true } else { nil } }
        try await eventually("both in the first room") {
            try ben.snapshot.myself.location == .room(rooms[0].id) && ann.snapshot.myself.location == .room(rooms[0].id)
        }
        let inRoom = received.count
        try await received.waitFor(audio: 60, video: 5, after: inRoom, "Ann's tone and picture in the room")
        try Self.expectToneAndColour(received, after: inRoom, "room")

        // Ben moved apart: nothing of Ann reaches him any more.
        try await manager.move(benID, to: rooms[1].id)
        try await eventually("Ben in the second room") { try ben.snapshot.myself.location == .room(rooms[1].id) }
        // What was in flight at the move lands first.
        try await Task.sleep(for: .milliseconds(500))
        let apart = received.count
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(received.count == apart, "\(received.count - apart) frames of Ann reached Ben in another room")
        // Ann is still publishing all along: her own tone keeps going (she hears nobody).
        #expect(publisher.isCancelled == false)

        publisher.cancel()
        _ = try? await publisher.value
        try await ann.session.leave()
        // Leaving ends her media: nothing more can be sent.
        let frame = EncodedFrame(codec: .opus, bytes: [0xF8, 0xFF, 0xFE], timestamp: 0, isKeyframe: true)
        try await eventually("Ann's media closed by her leave") { (try? ann.session.audioHelper.send(frame)) == nil }
        let (audioOn, videoOn) = (await ann.session.audioHelper.isStarted, await ann.session.videoHelper.isStarted)
        #expect(!audioOn && !videoOn)
        try await ben.session.leave()
        try await host.session.leave()
        await server.stop()
    }

    @Test func muteStopsTheAudioEveryoneSeesItAndUnmuteBringsItBack() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let annID = try ann.id
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        let received = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await received.waitFor(audio: 20, video: 2, "Ann's media")

        try await ann.session.audioHelper.mute()
        #expect(await ann.session.audioHelper.isMuted)
        _ = try await ben.log.next("Ann muted") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.video] { true } else { nil }
        }
        let refused = #expect(throws: SessionError.self) {
            try ann.session.audioHelper.send(EncodedFrame(codec: .opus, bytes: [0xF8, 0xFF, 0xFE], timestamp: 0, isKeyframe: true))
        }
        #expect(refused.map { if case .media = $0 { true } else { false } } == true, "\(String(describing: refused))")
        try await Task.sleep(for: .milliseconds(300))
        let muted = received.count
        try await received.waitFor(audio: 0, video: 10, after: muted, "Ann's video while she is muted")
        #expect(received.audio(after: muted).isEmpty, "Ann's audio reached Ben while she was muted")

        try await ann.session.audioHelper.unmute()
        _ = try await ben.log.next("Ann unmuted") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.audio, .video] { true } else { nil }
        }
        let unmuted = received.count
        try await received.waitFor(audio: 60, video: 1, after: unmuted, "Ann's audio after unmuting")
        #expect(abs(try received.toneFrequency(after: unmuted) - TestPublisher.toneHertz) < TestPublisher.toneHertz * 0.02)

        // Ben leaves audio: her video still reaches him, her audio no longer does.
        try await ben.session.audioHelper.stop()
        try await Task.sleep(for: .milliseconds(300))
        let stopped = received.count
        try await received.waitFor(audio: 0, video: 10, after: stopped, "Ann's video after Ben left audio")
        #expect(received.audio(after: stopped).isEmpty, "Ann's audio reached Ben after he left audio")

        publisher.cancel()
        _ = try? await publisher.value
        await server.stop()
    }

    @Test func aScreenShareArrivesAsAScreenShareBesideTheCamera() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let annID = try ann.id
        try await ann.session.videoHelper.start()
        try await ann.session.shareHelper.start()
        #expect(await ann.session.shareHelper.isStarted)
        try await ben.session.audioHelper.start(muted: true)
        _ = try await ben.log.next("Ann's share") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.video, .screenShare] { true } else { nil }
        }
        let received = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session, share: true)
        defer { publisher.cancel() }
        try await eventually(seconds: 30, "Ann's camera and share at Ben") {
            received.frames(of: .screenShare).drop { !$0.isKeyframe }.count >= 3 && received.video().drop { !$0.isKeyframe }.count >= 5
        }
        // Two slots, never mixed: the camera's colour in one, the screen's in the other.
        let camera = try #require(try received.lastColour(of: .video))
        let screen = try #require(try received.lastColour(of: .screenShare))
        for (seen, sent) in [(camera, TestPublisher.colour), (screen, TestPublisher.shareColour)] {
            #expect(abs(seen.red - Double(sent.red)) < 12 && abs(seen.green - Double(sent.green)) < 12 && abs(seen.blue - Double(sent.blue)) < 12,
                "\(seen) for \(sent)")
        }
        #expect(received.audio().isEmpty)

        try await ann.session.shareHelper.stop()
        _ = try await ben.log.next("Ann's share stopped") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.video] { true } else { nil }
        }
        try await Task.sleep(for: .milliseconds(300))
        let stopped = received.count
        try await received.waitFor(audio: 0, video: 5, after: stopped, "Ann's camera after her share stopped")
        #expect(received.frames(of: .screenShare, after: stopped).isEmpty)

        publisher.cancel()
        _ = try? await publisher.value
        await server.stop()
    }

    /// Two publishers at once, each in its own slots: every frame is labelled with the user
    /// who sent it (a tone and a colour of each, never mixed).
    @Test func twoPublishersFramesAreEachLabelledWithTheirOwnUser() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann")
        let cy = try await server.client("Cy")
        let ben = try await server.client("Ben")
        let (annID, cyID) = (try ann.id, try cy.id)
        for publisher in [ann, cy] {
            try await publisher.session.audioHelper.start()
            try await publisher.session.videoHelper.start()
        }
        try await ben.session.audioHelper.start(muted: true)
        let fromAnn = ReceivedMedia(ben.session, from: annID)
        let fromCy = ReceivedMedia(ben.session, from: cyID)
        let green: TestPublisher.Colour = (40, 180, 60)
        let publishers = [TestPublisher.start(ann.session), TestPublisher.start(cy.session, hertz: 660, colour: green)]
        defer { publishers.forEach { $0.cancel() } }
        try await fromAnn.waitFor(audio: 60, video: 5, "Ann's media")
        try await fromCy.waitFor(audio: 60, video: 5, "Cy's media")
        try Self.expectToneAndColour(fromAnn, after: 0, "Ann's")
        let cyTone = try fromCy.toneFrequency()
        #expect(abs(cyTone - 660) / 660 < 0.02, "Cy's tone is \(cyTone) Hz")
        let cyColour = try #require(try fromCy.lastColour())
        #expect(abs(cyColour.red - 40) < 12 && abs(cyColour.green - 180) < 12 && abs(cyColour.blue - 60) < 12, "Cy's colour \(cyColour)")

        publishers.forEach { $0.cancel() }
        for publisher in publishers { _ = try? await publisher.value }
        await server.stop()
    }

    static func expectToneAndColour(_ received: ReceivedMedia, after mark: Int, _ place: String) throws {
        let frequency = try received.toneFrequency(after: mark)
        #expect(abs(frequency - TestPublisher.toneHertz) / TestPublisher.toneHertz < 0.02, "\(place): the tone is \(frequency) Hz")
        let decoded = try received.lastColour(after: mark)
        let colour = try #require(decoded, "\(place): no picture decoded")
        let expected = TestPublisher.colour
        #expect(abs(colour.red - Double(expected.red)) < 12, "\(place): red \(colour.red)")
        #expect(abs(colour.green - Double(expected.green)) < 12, "\(place): green \(colour.green)")
        #expect(abs(colour.blue - Double(expected.blue)) < 12, "\(place): blue \(colour.blue)")
    }
}
