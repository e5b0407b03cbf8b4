import CaucusCore
import CaucusMedia
import CaucusRecording
import Logging
import CaucusSFU
import CaucusMediaTestSupport
import CaucusStore
import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import CaucusServer

/// The media loop's half of a handover's two steps (`MediaTransport.switchRouting`, then
/// `releaseSlotMaps` once the events are queued): forwarding changes at once, the slot maps
/// wait for the release, and every slot map the session makes meanwhile waits behind them.
@Suite struct MediaRouterSlotMapHoldTests {
    let session = StoredSessionID(rawValue: 1)
    let metrics = MediaMetrics()

    /// The plan `caucus serve` makes of the test offer: one audio slot, publishing `ssrc`.
    static func plan(publishing ssrc: UInt32) throws -> MediaSlotPlan {
        MediaSlotPlan.answered(try SessionDescription(parsing: MediaRoutingOrderTests.offer(ssrc: ssrc)), firstSSRC: ssrc * 100)
    }

    /// Who fills each slot map frame written to `channel` so far, in order.
    static func slotMaps(on channel: EmbeddedChannel) throws -> [Int?] {
        channel.embeddedEventLoop.run()
        var maps: [Int?] = []
        while let frame = try channel.readOutbound(as: ByteBuffer.self) {
            // The frame is the WebSocket frame's payload after its 2- or 4-byte header.
            let text = String(buffer: frame)
            guard let start = text.firstIndex(of: "{"), let data = text[start...].data(using: .utf8),
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let slots = (object["media"] as? [String: Any])?["slots"] as? [[String: Any]]
            else { continue }
            maps.append(slots.first?["user"] as? Int)
        }
        return maps
    }

    /// A router whose session has Bo (user 1, listening on `channel`'s connection) and two
    /// publishers, Cy (2) and Di (3).
    func router(routingSlice: Int = ServerConfiguration().mediaRoutingSlice) throws -> MediaRouter {
        // Records nothing: no recording handover reaches it.
        let recording = RecordingContext(
            layout: RecordingLayout(dataDirectory: "/nonexistent"), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let router = MediaRouter(table: MediaPeerTable(metrics: metrics), metrics: metrics, routingSlice: routingSlice, recording: recording)
        for (user, ssrc) in [(1, UInt32(0xB0)), (2, 0xC0), (3, 0xD0)] {
            router.addPeer(MediaPeerKey(session: session, user: UserID(user)), plan: try Self.plan(publishing: ssrc), now: MediaClock.now())
        }
        return router
    }

    func hearing(_ publisher: Int, on connection: ClientConnection) -> MediaHandover {
        var handover = MediaHandover()
        handover.users[1] = MediaHandover.Entry(
            eligible: [PublishedStream(publisher: publisher, kind: .audio)], location: .main, connection: connection)
        return handover
    }

    @Test func aHeldSlotMapWaitsForTheReleaseAndALaterOneWaitsBehindIt() throws {
        let channel = EmbeddedChannel()
        let connection = ClientConnection(queueLimit: 100, channel: channel)
        let router = try router()
        router.update(session, hearing(2, on: connection), holdingSlotMaps: true, now: MediaClock.now())
        #expect(try Self.slotMaps(on: channel).isEmpty, "the slot map went out before its events were queued")
        // A change decided meanwhile (sent at once when nothing is held) waits behind it.
        router.update(session, hearing(3, on: connection), now: MediaClock.now())
        #expect(try Self.slotMaps(on: channel).isEmpty, "a later slot map overtook the held one")
        router.releaseSlotMaps(session)
        #expect(try Self.slotMaps(on: channel) == [2, 3])
        // Once released, slot maps go out at once again.
        router.update(session, hearing(2, on: connection), now: MediaClock.now())
        #expect(try Self.slotMaps(on: channel) == [2])
    }

    /// A handover recomputed in slices (one user each here): the slices computed before the
    /// release wait with the first one's slot map, those after it go out at once.
    @Test func slicesComputedWhileSlotMapsAreHeldWaitWithThem() throws {
        let channels = (1...3).map { _ in EmbeddedChannel() }
        let connections = channels.map { ClientConnection(queueLimit: 100, channel: $0) }
        let router = try router(routingSlice: 1)
        // Bo hears Cy, Cy hears Di, Di hears Bo.
        var handover = MediaHandover()
        for (index, (user, publisher)) in [(1, 2), (2, 3), (3, 1)].enumerated() {
            handover.users[user] = MediaHandover.Entry(
                eligible: [PublishedStream(publisher: publisher, kind: .audio)], location: .main, connection: connections[index])
        }
        router.update(session, handover, holdingSlotMaps: true, now: MediaClock.now())
        #expect(router.hasPendingRouting)
        router.continueRouting(now: MediaClock.now())
        #expect(router.hasPendingRouting)
        for channel in channels { #expect(try Self.slotMaps(on: channel).isEmpty, "a slice's slot map went out before the release") }
        router.releaseSlotMaps(session)
        #expect(try Self.slotMaps(on: channels[0]) == [2])
        #expect(try Self.slotMaps(on: channels[1]) == [3])
        #expect(try Self.slotMaps(on: channels[2]).isEmpty, "Di's slice is still to come")
        router.continueRouting(now: MediaClock.now())
        #expect(!router.hasPendingRouting)
        #expect(try Self.slotMaps(on: channels[2]) == [1])
    }
}
