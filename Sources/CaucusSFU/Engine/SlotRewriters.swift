extension ForwardingEngine {
    /// A subscriber's rewriters, one per receive slot, in its plan's order. A subscriber has a
    /// handful of slots (eight by default), and the packet path finds one for every copy it
    /// makes: a scan of their slots, packed side by side, costs less than hashing a `SlotID`,
    /// which was the engine's largest single cost in a profile of audio forwarding
    /// (`docs/benchmarks.md`, "A subscriber's rewriters found by a scan").
    struct SlotRewriters: Sequence {
        /// The slots, in the rewriters' order: what a lookup scans.
        private(set) var slots: [SlotID]
        private var rewriters: [SlotRewriter]

        /// One rewriter per slot. A receive plan names each slot once (`MediaSlotPlan`), which a
        /// debug build checks; a release build keeps the first of a slot named twice, so that a
        /// lookup's answer never depends on which of two it meets.
        init(_ rewriters: [SlotRewriter]) {
            assert(Set(rewriters.map(\.slot)).count == rewriters.count, "a receive plan names a slot twice")
            var slots: [SlotID] = []
            var kept: [SlotRewriter] = []
            for rewriter in rewriters where !slots.contains(rewriter.slot) {
                slots.append(rewriter.slot)
                kept.append(rewriter)
            }
            self.slots = slots
            self.rewriters = kept
        }

        /// Where `slot`'s rewriter is, for reading and changing it in place by its position.
        func position(of slot: SlotID) -> Int? {
            slots.firstIndex(of: slot)
        }

        /// The rewriter at `position` (from ``position(of:)``), changed in place.
        subscript(position: Int) -> SlotRewriter {
            get { rewriters[position] }
            _modify { yield &rewriters[position] }
        }

        /// A copy of `slot`'s rewriter, if the subscriber has that slot (to change one, find its
        /// position: the slots are the plan's, none added or taken away).
        subscript(slot: SlotID) -> SlotRewriter? {
            position(of: slot).map { rewriters[$0] }
        }

        func makeIterator() -> some IteratorProtocol<(slot: SlotID, rewriter: SlotRewriter)> {
            zip(slots, rewriters).lazy.map { (slot: $0, rewriter: $1) }.makeIterator()
        }
    }
}
