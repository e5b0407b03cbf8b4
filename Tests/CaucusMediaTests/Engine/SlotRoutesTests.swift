import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's slot routes, on their own: the table the packet path reads and the index of
/// each slot's sources stay in step through any sequence of changes, a slot routed from nothing
/// leaves both, and a packet's slots come in subscriber then slot order.
@Suite struct SlotRoutesTests {
    static func slot(_ subscriber: Int, _ kind: StreamKind, _ index: Int = 0) -> SlotDestination {
        SlotDestination(subscriber: subscriber, slot: SlotID(kind: kind, index: index))
    }

    @Test func aSlotIsRoutedFromExactlyItsSourcesAndFromNothingLeavesBoth() {
        var routes = SlotRoutes()
        let video = Self.slot(3, .video)
        routes.route(video, from: [10])
        routes.route(video, from: [10, 20])
        #expect(routes.sources(of: video) == [10, 20])
        #expect(routes.destinations(of: 10) == [video] && routes.destinations(of: 20) == [video])

        // The switch done: only the new source is left.
        routes.route(video, from: [20])
        #expect(routes.destinations(of: 10).isEmpty && routes.destinations(of: 20) == [video])

        routes.route(video, from: [])
        #expect(routes.sources(of: video).isEmpty && routes.destinations(of: 20).isEmpty)
        #expect(routes.count == 0 && routes.table.routedSSRCs.isEmpty)
    }

    @Test func aPacketsSlotsComeBySubscriberThenSlot() {
        var routes = SlotRoutes()
        let order = [Self.slot(9, .audio), Self.slot(2, .video, 1), Self.slot(2, .audio), Self.slot(5, .audio), Self.slot(2, .video)]
        for destination in order { routes.route(destination, from: [7]) }
        #expect(routes.destinations(of: 7) == [Self.slot(2, .audio), Self.slot(2, .video), Self.slot(2, .video, 1), Self.slot(5, .audio), Self.slot(9, .audio)])
    }

    /// Random changes to a few slots from a few SSRCs: after each, the table holds exactly what
    /// a table built afresh from every slot's sources holds.
    @Test(arguments: 0..<8)
    func theTableAndTheIndexStayInStep(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let destinations = (1...3).flatMap { user in [Self.slot(user, .audio), Self.slot(user, .video), Self.slot(user, .video, 1)] }
        let ssrcs: [UInt32] = [1, 2, 3, 4]
        var routes = SlotRoutes()
        var model: [SlotDestination: [UInt32]] = [:]
        for _ in 0..<300 {
            let destination = destinations.randomElement(using: &random)!
            let count = Int.random(in: 0...2, using: &random)
            let sources = Array(ssrcs.shuffled(using: &random).prefix(count))
            routes.route(destination, from: sources)
            model[destination] = sources.isEmpty ? nil : sources

            let fresh = RoutingTable(routes: model.flatMap { destination, sources in sources.map { ($0, destination) } })
            for ssrc in ssrcs {
                #expect(routes.destinations(of: ssrc) == fresh.destinations(of: ssrc), "SSRC \(ssrc), seed \(seed)")
            }
            for destination in destinations {
                #expect(routes.sources(of: destination) == model[destination] ?? [])
            }
            #expect(routes.count == model.count)
        }
    }
}
