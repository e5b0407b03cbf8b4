import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's subscriber downlinks, on their own: an estimate only for a subscriber whose
/// answer negotiated transport-cc where it receives, its copies numbered in order; layers chosen
/// once an interval, the estimate shared between the publications shown, the lowest layer while
/// nothing is known and a probe target for the next; a departed or replaced peer's estimate gone.
@Suite struct SubscriberDownlinksTests {
    typealias Routing = ForwardingEngineTests
    static let withTransportCC = DownlinkRoutingTests.withTransportCC

    /// A publication with layers l, m, h on SSRCs 1, 2, 3 at 150, 400 and 900 kbit/s, forwarding `forwarded`.
    static func publication(forwarded: String? = "h") -> SimulcastPublication {
        var publication = SimulcastPublication(layers: ["h", "m", "l"], streamIDExtension: 10, repairedStreamIDExtension: nil, mediaPayloadType: 96)
        publication.ssrcs = ["l": 1, "m": 2, "h": 3]
        publication.rates = [1: 150_000, 2: 400_000, 3: 900_000]
        publication.forwarded = forwarded
        return publication
    }

    @Test func onlyASubscriberThatNegotiatedTransportCCHasAnEstimateAndItsCopiesAreNumbered() {
        var downlinks = SubscriberDownlinks()
        downlinks.learn(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: Self.withTransportCC))
        downlinks.learn(2, plan: Routing.plan(audioSSRC: 2, videoSSRC: 20))
        #expect(downlinks.users == [1] && downlinks.estimates(1) && !downlinks.estimates(2))
        let stamps = (0..<3).map { downlinks.stamp(to: 1, size: 1_000, at: .milliseconds($0), cluster: nil) }
        let first = stamps[0] ?? 0
        #expect(stamps == [first, first &+ 1, first &+ 2])
        let other = downlinks.stamp(to: 2, size: 1_000, at: .zero, cluster: nil)
        #expect(other == nil, "no estimate, no number")

        // A new peer without the extension has none; a departure takes it away.
        downlinks.learn(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10))
        #expect(downlinks.isEmpty)
        downlinks.learn(3, plan: Routing.plan(audioSSRC: 3, videoSSRC: 30, numbering: Self.withTransportCC))
        downlinks.forget(3)
        #expect(downlinks.isEmpty && downlinks[3] == nil)
    }

    @Test func layersAreChosenOnceAnInterval() {
        var downlinks = SubscriberDownlinks()
        let due = [0, 249, 250, 400, 499, 500].map { downlinks.layerChoiceDue(at: .milliseconds($0)) }
        #expect(due == [false, false, true, false, false, true])
    }

    @Test func whileNothingIsKnownEachPublicationShowsItsLowestLayerAndAProbeAimsAtTheNext() {
        var downlinks = SubscriberDownlinks()
        downlinks.learn(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: Self.withTransportCC))
        let (two, three) = (PublishedStream(publisher: 2, kind: .video), PublishedStream(publisher: 3, kind: .video))
        var paused = Self.publication()
        paused.rates = [1: 150_000, 2: 300_000, 3: 0]
        let changed = downlinks.choose(for: 1, showing: [(two, Self.publication()), (three, paused)])
        #expect(changed)
        #expect(downlinks[1]?.layers == [two: "l", three: "l"], "nothing known of the link: the lowest, whatever is forwarded")
        #expect(downlinks[1]?.probeTarget == 150_000, "the nearer of the next layers: 300 k over 150 k")
        let again = downlinks.choose(for: 1, showing: [(two, Self.publication()), (three, paused)])
        #expect(!again, "the same choice changes nothing")

        let none = downlinks.choose(for: 1, showing: [])
        #expect(none && downlinks[1]?.layers == [:] && downlinks[1]?.probeTarget == nil)
        let nobody = downlinks.choose(for: 2, showing: [(two, Self.publication())])
        #expect(!nobody && downlinks[2] == nil, "no estimate: the publication's own layer, nothing chosen")
        let probes = downlinks.stepProbes(at: .seconds(5))
        #expect(probes.isEmpty, "a link nothing is known of is not probed")
    }
}
