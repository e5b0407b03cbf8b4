import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// `mediaOffer` on the session's WebSocket against a real server with its media port, and a
/// real WebRTC peer nobody here wrote (aiortc) on the other end.
@Suite(.serialized) struct MediaSignallingTests {
    /// aiortc offers a tone, gets the server's answer through `mediaOffer`, and ICE and DTLS
    /// complete on both sides; the server decrypts its RTP. Then the user leaves: the server
    /// drops the peer at once and aiortc's connection ends.
    @Test func aiortcConnectsSendsAudioAndLosesItsPeerOnLeaving() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let key = try await Self.key(of: ada, on: server)
        let peer = try AiortcPeerProcess()
        defer { peer.stop() }

        let offer = try await within(seconds: 30, "aiortc's offer") { try await peer.next() }
        let result = try await ada.request("mediaOffer", ["sdp": try #require(offer["offer"])])
        let answer = try #require(result["sdp"] as? String)
        #expect(answer.contains("a=candidate:1 1 udp 2130706431 127.0.0.1 \(server.server.mediaPort) typ host"))
        try peer.send(["answer": answer])
        let connected = try await within(seconds: 40, "aiortc connecting") { try await peer.next() }
        #expect(connected == ["state": "connected"])

        let media = server.server.media
        let stats = try await within(seconds: 30, "RTP from aiortc") {
            while true {
                if let stats = await media.stats(for: key), stats.isConnected, stats.rtpReceived >= 25 { return stats }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(stats.counters.authenticationFailures == 0 && stats.counters.replays == 0)

        try await ada.request("leave")
        #expect(await media.stats(for: key) == nil, "the peer is gone once the leave is done")
        peer.send(line: "await-end")
        let ended = try await within(seconds: 70, "aiortc noticing") { try await peer.next() }
        #expect(["closed", "failed"].contains(ended["state"] ?? ""), "aiortc still \(ended)")
        await server.stop()
    }

    /// A second offer from the same user replaces its peer: checks for the first answer's
    /// ufrag reach no peer any more, while the second's are answered.
    @Test func aNewOfferReplacesTheUsersPeer() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let key = try await Self.key(of: ada, on: server)
        let first = try #require(try await ada.request("mediaOffer", ["sdp": Self.offer])["sdp"] as? String)
        let second = try #require(try await ada.request("mediaOffer", ["sdp": Self.offer])["sdp"] as? String)
        let stats = try #require(await server.server.media.stats(for: key))
        #expect(!stats.isConnected && stats.closeReason == nil)

        let socket = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 100)
        let media = server.server.media
        let port = TransportAddress(ip: IPAddress("127.0.0.1")!, port: UInt16(server.server.mediaPort))
        let offerCredentials = ICECredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        var stale = ICEControllingAgent(local: offerCredentials, remote: try Self.credentials(in: first), remoteAddress: port, tieBreaker: 1)
        let staleCheck = stale.start(at: .zero)
        socket.send(try #require(staleCheck), to: port)
        try await within("the stale check counted as unclaimed") {
            while await media.unclaimedDatagrams() < 1 { try await Task.sleep(for: .milliseconds(20)) }
        }
        var current = ICEControllingAgent(local: offerCredentials, remote: try Self.credentials(in: second), remoteAddress: port, tieBreaker: 1)
        let currentCheck = current.start(at: .zero)
        socket.send(try #require(currentCheck), to: port)
        let received = socket.receive()
        let (response, source) = try #require(received, "the current peer answers its check")
        current.receive(response, from: source, at: .zero)
        #expect(current.state == .connected)
        #expect(await media.unclaimedDatagrams() == 1)
        await server.stop()
    }

    /// A user the host removes loses its peer before the removal is answered.
    @Test func aRemovedUserLosesItsPeerAtOnce() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bob = try await server.joined("Bob")
        let key = try await Self.key(of: bob, on: server)
        try await bob.request("mediaOffer", ["sdp": Self.offer])
        #expect(await server.server.media.stats(for: key) != nil)
        try await ada.request("remove", ["user": try #require(await bob.user)])
        #expect(await server.server.media.stats(for: key) == nil)
        await server.stop()
    }

    /// Issue 26, item 5: a user who offers while nobody publishes learns its slots (all
    /// empty) with the answer, not only once someone publishes.
    @Test func anOfferWhileNobodyPublishesGetsItsEmptySlotMap() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let receiving = Self.offer.replacingOccurrences(of: "a=sendonly", with: "a=sendrecv")
        let offered = try await ada.send("mediaOffer", ["sdp": receiving])
        let answer = try await ada.reply(to: offered)
        #expect(answer["error"] == nil, "\(answer)")
        // A ping's reply follows whatever the server sent after the answer.
        let ping = try await ada.send("ping")
        var maps: [[JSON]] = []
        while let frame = try await ada.nextFrame(), frame["re"] as? Int != ping {
            if let slots = (frame["media"] as? JSON)?["slots"] as? [JSON] { maps.append(slots) }
        }
        #expect(maps.count == 1, "\(maps)")
        let slots = try #require(maps.first)
        #expect(slots.count == 1)
        #expect(slots.first?["mid"] as? String == "0" && slots.first?["kind"] as? String == "audio")
        #expect(slots.first?["user"] == nil, "nobody fills it")
        await server.stop()
    }

    @Test func badOffersAreRefusedWithStableCodes() async throws {
        let server = try await TestServer.start()
        let stranger = try await TestClient.connect(to: server)
        #expect(try await stranger.refused("mediaOffer", ["sdp": Self.offer]) == 1005)
        let ada = try await server.joined("Ada", role: .host)
        #expect(try await ada.refused("mediaOffer", ["sdp": "hello"]) == 7101)
        #expect(try await ada.refused("mediaOffer", [:]) == 1004)
        let unbundled = Self.offer.replacingOccurrences(of: "a=group:BUNDLE 0\r\n", with: "")
        #expect(try await ada.refused("mediaOffer", ["sdp": unbundled]) == 7102)
        let noMux = Self.offer.replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")
        #expect(try await ada.refused("mediaOffer", ["sdp": noMux]) == 7102)
        let key = try await Self.key(of: ada, on: server)
        #expect(await server.server.media.stats(for: key) == nil, "a refused offer makes no peer")
        await server.stop()
    }

    /// Two users of a session may not send from one SSRC: the later offer is refused (7102),
    /// makes no peer and leaves the first user's media as it was; with an SSRC of its own it
    /// is answered. The first user may offer its own SSRC again, and another session may use it;
    /// one that another session named first is still guarded in this one.
    @Test func anOfferSendingFromAnotherUsersSSRCIsRefused() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let publisher = try await MediaTestClient.connect(ada, on: server)
        try await ada.request("publish", ["media": ["audio"]])
        func offer(sending ssrc: UInt32, kind: SDPOffer.Section.Kind = .audio) throws -> String {
            let certificate = try DTLSCertificate.generate(commonName: "client")
            let sections = [SDPOffer.Section(kind: kind, direction: .sendonly, sendingSSRC: ssrc)]
            return SDPOffer(sections: sections, credentials: .random(), fingerprint: certificate.fingerprint).text
        }
        let boKey = try await Self.key(of: bo, on: server)
        let reply = try await bo.reply(to: try bo.send("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc, kind: .video)]))
        let error = try #require(reply["error"] as? JSON, "\(reply)")
        #expect(error["code"] as? Int == 7102)
        #expect((error["message"] as? String)?.contains("SSRC \(MediaTestClient.ssrc)") == true, "\(error)")
        #expect(await server.server.media.stats(for: boKey) == nil, "a refused offer makes no peer")
        // Ada's media still goes through her peer, decrypted.
        try publisher.sendMedia(1...3)
        let (media, adaKey) = (server.server.media, publisher.key)
        try await within("Ada's packets decrypted after Bo's refused offer") {
            while await media.stats(for: adaKey)?.rtpReceived != 3 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(try await bo.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc + 1)])["sdp"] is String)
        #expect(try await ada.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc)])["sdp"] is String, "her own")
        let elsewhere = try await server.joined("Cy", session: "Other", role: .host)
        #expect(try await elsewhere.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc + 1)])["sdp"] is String)
        // An SSRC another session's user named first is still this session's to guard: Ada
        // may send from it, and then Bo may not.
        #expect(try await elsewhere.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc + 2)])["sdp"] is String)
        #expect(try await ada.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc + 2)])["sdp"] is String)
        let taken = try await bo.reply(to: try bo.send("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc + 2)]))
        #expect((taken["error"] as? JSON)?["code"] as? Int == 7102, "\(taken)")
        // Ada's new peer replaced the one that sent from her first SSRC: Bo may take it now.
        #expect(try await bo.request("mediaOffer", ["sdp": try offer(sending: MediaTestClient.ssrc)])["sdp"] is String)
        await server.stop()
    }

    /// The `mediaOffer` example in docs/protocol.md: the server answers the documented offer
    /// with the documented answer, but for what is fresh in each answer (ICE credentials,
    /// fingerprint, session id, port).
    @Test func theDocumentedAnswerIsWhatTheServerAnswers() async throws {
        let document = try ProtocolDocument.load(from: ProtocolDocumentationTests.path)
        let examples = document.examples.compactMap(\.object)
        let request = try #require(examples.first { $0["op"] as? String == "mediaOffer" })
        let documentedOffer = try #require(request["sdp"] as? String)
        let reply = try #require(examples.first { ($0["result"] as? [String: Any])?["sdp"] != nil })
        let documentedAnswer = try #require((reply["result"] as? [String: Any])?["sdp"] as? String)

        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let answer = try #require(try await ada.request("mediaOffer", ["sdp": documentedOffer])["sdp"] as? String)
        #expect(Self.masked(answer) == Self.masked(documentedAnswer), "the server answers:\n\(answer)")
        await server.stop()
    }

    // MARK: - Helpers

    static func key(of client: TestClient, on server: TestServer) async throws -> MediaPeerKey {
        let session = try #require(await server.server.registry.session(app: server.app.key, named: "Class"))
        return MediaPeerKey(session: await session.id, user: UserID(try #require(await client.user)))
    }

    /// The server's ICE credentials in an answer.
    static func credentials(in answer: String) throws -> ICECredentials {
        let section = try #require(try SessionDescription(parsing: answer).media.first)
        return ICECredentials(ufrag: try #require(section.iceUfrag), pwd: try #require(section.icePwd))
    }

    /// The answer with what differs between two answers replaced by placeholders.
    static func masked(_ sdp: String) -> String {
        sdp.replacing(/a=ice-ufrag:\S+/, with: "a=ice-ufrag:…")
            .replacing(/a=ice-pwd:\S+/, with: "a=ice-pwd:…")
            .replacing(#/a=fingerprint:sha-256 \S+/#, with: "a=fingerprint:sha-256 …")
            .replacing(#/o=- \d+ /#, with: "o=- … ")
            .replacing(#/(m=\w+ )\d+ /#) { "\($0.output.1)… " }
            .replacing(#/127\.0\.0\.1 \d+ typ host/#, with: "127.0.0.1 … typ host")
    }

    /// A minimal WebRTC audio offer (as aiortc makes it, trimmed).
    static let offer = [
        "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0", "a=msid-semantic:WMS *",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=sendonly", "a=mid:0", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:0123456789012345678901",
        "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
        "a=setup:actpass", "a=rtpmap:111 opus/48000/2",
    ].joined(separator: "\r\n") + "\r\n"
}
