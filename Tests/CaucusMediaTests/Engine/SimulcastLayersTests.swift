import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's simulcast layers, on their own: a publication's layers are learned from their
/// first packet's RID (only the offer's, each once), its first learned is forwarded; a layer's
/// RTX stream from its repaired RID; the bytes each carries rank them once per interval, and a
/// layer takes over only by a fifth more; a publisher's layers go with it.
@Suite struct SimulcastLayersTests {
    typealias Packets = SimulcastRoutingTests
    static let video = PublishedStream(publisher: 2, kind: .video)

    /// User 2's publication from Chromium's simulcast offer (layers h, m, l).
    static func layers() throws -> SimulcastLayers {
        var layers = SimulcastLayers()
        layers.learn(2, plan: try Packets.simulcastPlan())
        return layers
    }

    static func learn(_ layers: inout SimulcastLayers, ssrc: UInt32, rid: String?, repairs: String? = nil) -> SimulcastLayers.Learned? {
        layers.learn(from: Packets.layerPacket(ssrc: ssrc, sequenceNumber: 1, rid: rid, repairs: repairs), ssrc: ssrc, of: 2)
    }

    @Test func theOffersLayersAreLearnedOnceAndTheFirstIsForwarded() throws {
        var layers = try Self.layers()
        #expect(layers[Self.video]?.layers == ["h", "m", "l"] && layers.forwardedLayers.isEmpty)
        let learned = [(500, nil), (501, "l"), (502, "h"), (503, "q"), (504, "l")].map { Self.learn(&layers, ssrc: $0, rid: $1) }
        #expect(learned[0] == nil, "no RID")
        #expect(learned[1] == .layer(Self.video, forwardedNow: true))
        #expect(learned[2] == .layer(Self.video, forwardedNow: false))
        #expect(learned[3] == nil, "not a layer of the offer")
        #expect(learned[4] == nil, "l is learned already")
        #expect(layers.stream(ofLayer: 501) == Self.video && layers.stream(ofLayer: 502) == Self.video && layers.stream(ofLayer: 504) == nil)
        #expect(layers.forwardedLayers.map(\.ssrc) == [501])
        // Another user's packet names no layer of its own.
        let others = layers.learn(from: Packets.layerPacket(ssrc: 505, sequenceNumber: 1, rid: "m"), ssrc: 505, of: 3)
        #expect(others == nil)
    }

    @Test func aLayersRTXStreamIsKnownByTheRIDItRepairs() throws {
        var layers = try Self.layers()
        let early = Self.learn(&layers, ssrc: 601, rid: nil, repairs: "l")
        #expect(early == nil, "l is not learned yet")
        _ = Self.learn(&layers, ssrc: 501, rid: "l")
        let payloadType = try #require(layers[Self.video]?.mediaPayloadType)
        let repair = Self.learn(&layers, ssrc: 601, rid: nil, repairs: "l")
        #expect(repair == .repair(rtx: 601, media: 501, payloadType: payloadType))
    }

    @Test func theBusiestLayerTakesOverOnlyByAFifthAndOnlyOnceAnInterval() throws {
        var layers = try Self.layers()
        _ = Self.learn(&layers, ssrc: 501, rid: "l")
        _ = Self.learn(&layers, ssrc: 502, rid: "h")
        let counted = [layers.count(100, on: 503), layers.count(1_000, on: 501), layers.count(1_200, on: 502)]
        #expect(counted == [false, true, true], "503 is no layer")
        // A fifth more is not enough.
        let first = layers.rank(now: .seconds(1))
        #expect(first.isEmpty)
        #expect(layers[Self.video]?.rates == [501: 8_000, 502: 9_600], "bits per second over the interval")
        #expect(layers[Self.video]?.forwarded == "l")
        // More than a fifth: h takes over, but not before the interval is over.
        _ = layers.count(1_000, on: 501)
        _ = layers.count(1_300, on: 502)
        let early = layers.rank(now: .milliseconds(1_999))
        #expect(early.isEmpty, "ranked at most once an interval")
        let second = layers.rank(now: .seconds(2))
        #expect(second == [2])
        #expect(layers[Self.video]?.forwarded == "h" && layers.forwardedLayers.map(\.ssrc) == [502])
        #expect(layers[Self.video]?.rates[502] == 10_400, "the highest of the recent rates")
    }

    @Test func aPublishersLayersGoWithItAndNobodyElses() throws {
        var layers = try Self.layers()
        layers.learn(3, plan: try Packets.simulcastPlan())
        _ = Self.learn(&layers, ssrc: 501, rid: "l")
        _ = layers.learn(from: Packets.layerPacket(ssrc: 701, sequenceNumber: 1, rid: "l"), ssrc: 701, of: 3)
        layers.forget(2)
        let counted = layers.count(10, on: 501)
        #expect(layers[Self.video] == nil && layers.stream(ofLayer: 501) == nil && !counted)
        #expect(layers.stream(ofLayer: 701) == PublishedStream(publisher: 3, kind: .video) && layers.forwardedLayers.map(\.ssrc) == [701])
    }
}
