import Caucus
import CaucusCore
import Foundation
import Testing

/// A host mutes another user from the SDK, against `caucus serve` as a real child process:
/// two SDK clients, Ann publishing a real Opus tone and VP8. The host's `mute(user:)` makes
/// Ann's app hear `mediaMuted` (by the host), Ann's SDK stop sending her audio (her video goes
/// on), and her audio stop arriving at the host; only Ann brings it back.
@Suite(.serialized) struct SDKMuteOthersTests {
    static func client(_ userName: String, role: RoleClaim = .participant, _ server: ServerProcess) async throws -> Client {
        let client = Client()
        let token = try server.token(session: "Meeting", role: role)
        let url = try #require(URL(string: server.webSocketURL))
        try await within("\(userName) joins") {
            try await client.session.join(url: url, sessionName: "Meeting", userName: userName, token: token)
        }
        return client
    }

    @Test func theHostMutesAnnHerAppIsToldAndHerAudioStopsArriving() async throws {
        let server = try await ServerProcess(dataDirectory: temporaryFolder(prefix: "caucus-sdk-mute-others-"))
        defer { server.kill(SIGTERM) }
        let host = try await Self.client("Teacher", role: .host, server)
        let ann = try await Self.client("Ann", server)
        let (hostID, annID) = (try host.id, try ann.id)

        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await host.session.audioHelper.start(muted: true)
        let received = ReceivedMedia(host.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await received.waitFor(audio: 20, video: 2, "Ann's media at the host")

        // A participant cannot mute anyone.
        let refusal = await #expect(throws: SessionError.self) { try await ann.session.audioHelper.mute(user: hostID) }
        #expect(refusal?.code == .notPermitted, "\(String(describing: refusal))")

        try await host.session.audioHelper.mute(user: annID)
        let told = try await ann.log.next("Ann told she was muted") {
            if case .mediaMuted(let user, let kinds, let by) = $0, user.id == annID { (kinds, by?.id) } else { nil }
        }
        #expect(told.0 == .audio && told.1 == hostID)
        #expect(try ann.snapshot.myself.publishing == [.video])
        // Her SDK stops sending audio (her app's frames are refused, as when she mutes herself).
        try await eventually("Ann's SDK muted") {
            (try? ann.session.audioHelper.send(EncodedFrame(codec: .opus, bytes: [0xF8, 0xFF, 0xFE], timestamp: 0, isKeyframe: true)))
                == nil
        }
        #expect(await ann.session.audioHelper.isMuted)
        #expect(await ann.session.videoHelper.isStarted)
        // What was in flight lands first; from then on her video arrives, her audio does not.
        try await Task.sleep(for: .milliseconds(300))
        let muted = received.count
        try await received.waitFor(audio: 0, video: 10, after: muted, "Ann's video while she is muted")
        #expect(received.audio(after: muted).isEmpty, "Ann's audio reached the host after the host muted her")
        // Starting her video again publishes what is on: not her audio.
        try await ann.session.videoHelper.start()
        #expect(try ann.snapshot.myself.publishing == [.video])

        // Only Ann turns it on again.
        try await ann.session.audioHelper.unmute()
        let unmuted = received.count
        try await received.waitFor(audio: 40, video: 1, after: unmuted, "Ann's audio after she unmuted herself")

        // The host stops her camera too; her app hears it, her audio goes on.
        try await host.session.videoHelper.mute(user: annID)
        _ = try await ann.log.next("Ann told her video was stopped") {
            if case .mediaMuted(let user, let kinds, _) = $0, user.id == annID, kinds == .video { true } else { nil }
        }
        try await eventually("Ann's SDK stopped her video") { (try? ann.snapshot.myself.publishing) == [.audio] }
        #expect(await !ann.session.videoHelper.isStarted)

        publisher.cancel()
        _ = try? await publisher.value
        try await ann.session.leave()
        try await host.session.leave()
    }
}
