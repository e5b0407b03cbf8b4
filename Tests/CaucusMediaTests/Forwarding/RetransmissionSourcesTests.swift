import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's RTX sources, on their own: a publisher's RTX SSRCs as its plan names them, each
/// restoring its media stream in that stream's payload type; a simulcast layer's learned from
/// traffic; all of a publisher's forgotten with its peer, nobody else's.
@Suite struct RetransmissionSourcesTests {
    typealias Routing = ForwardingEngineTests
    static let withRTX = RetransmissionRoutingTests.publisherNumbering

    @Test func aPlansRTXStreamRestoresItsMediaStream() throws {
        let plan = Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withRTX)
        try #require(plan.publishedRetransmissionSSRCs == [.video: 21], "the offer's FID group")
        let payloadType = try #require(plan.publishedFormats[.video]?.codec.payloadType)
        var sources = RetransmissionSources()
        sources.learn(2, plan: plan)
        #expect(sources.source(of: 21) == .init(publisher: 2, mediaSSRC: 20, mediaPayloadType: payloadType))
        #expect(sources.source(of: 20) == nil && sources.source(of: 2) == nil, "media streams restore nothing")

        // A plan whose answer dropped RTX names none.
        var without = RetransmissionSources()
        without.learn(3, plan: Routing.plan(audioSSRC: 3, videoSSRC: 30))
        #expect(without.source(of: 31) == nil)
    }

    @Test func aPublishersStreamsAreForgottenWithItsPeerAndNobodyElses() {
        var sources = RetransmissionSources()
        sources.learn(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20, numbering: Self.withRTX))
        sources.learn(3, plan: Routing.plan(audioSSRC: 3, videoSSRC: 30, numbering: Self.withRTX))
        sources.learnLayer(77, of: 2, restoring: 70, payloadType: 98)
        #expect(sources.source(of: 77) == .init(publisher: 2, mediaSSRC: 70, mediaPayloadType: 98))

        sources.forget(2)
        #expect(sources.source(of: 21) == nil && sources.source(of: 77) == nil)
        #expect(sources.source(of: 31)?.publisher == 3 && sources.source(of: 31)?.mediaSSRC == 30)
    }
}
