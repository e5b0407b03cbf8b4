import CaucusMedia

/// Which incoming SSRCs each subscriber's slot is routed from, and the `RoutingTable` the
/// packet path reads (incoming SSRC → slots): a part of the ``ForwardingEngine`` with state of
/// its own. The two are kept in step by the one way in, ``route(_:from:)``, so a slot is in the
/// table for exactly the SSRCs its index lists, and a slot routed from nothing is in neither.
///
/// A slot is routed from at most two SSRCs: its source, and the source it waits to switch to
/// (at that source's keyframe). The table is changed route by route, in time proportional to
/// what changed, between two packets.
struct SlotRoutes {
    /// What the packet path reads: for each incoming SSRC, the slots it fills.
    private(set) var table = RoutingTable.empty
    /// The incoming SSRCs each slot is routed from in `table` now.
    private var routed: [SlotDestination: [UInt32]] = [:]

    /// The slots a packet from `ssrc` fills, by subscriber then slot; empty when none.
    @inline(__always)
    func destinations(of ssrc: UInt32) -> [SlotDestination] { table.destinations(of: ssrc) }

    /// The SSRCs `destination` is routed from; empty when none.
    func sources(of destination: SlotDestination) -> [UInt32] { routed[destination] ?? [] }

    /// Routes `destination` from exactly `ssrcs` (none: it goes from the table).
    mutating func route(_ destination: SlotDestination, from ssrcs: [UInt32]) {
        let old = routed[destination] ?? []
        guard old != ssrcs else { return }
        for ssrc in old where !ssrcs.contains(ssrc) { table.remove(destination, for: ssrc) }
        for ssrc in ssrcs where !old.contains(ssrc) { table.add(destination, for: ssrc) }
        routed[destination] = ssrcs.isEmpty ? nil : ssrcs
    }

    /// How many slots are routed from something.
    var count: Int { routed.count }
}
