/// The rollover counter of each SSRC one context protects (RFC 3711 §3.3.1).
///
/// The first ``inlineCapacity`` SSRCs are kept in the value itself, found by a scan; any more in
/// a dictionary. A context holds this inline, so the counter of a forwarded copy is read from the
/// context's own memory: the dictionary alone kept its entries in a separate object, whose first
/// read was about three quarters of `SRTPContext.protect(rtp:length:)`'s own samples in profiles
/// of the media loop (a cache miss on every copy), with a hash of the SSRC before it. A
/// server's subscriber receives on a few SSRCs (one per slot, and an RTX stream per video
/// slot), all of the server's choosing, so the scan is short and the dictionary rarely used.
struct SRTPOutboundCounters {
    static let inlineCapacity = 8

    /// Where an SSRC's counter is: read once per packet, written back once its seal succeeded.
    enum Position: Equatable {
        case inline(Int)
        case overflow(Dictionary<UInt32, SRTPRolloverCounter>.Index)
    }

    /// How many of the inline places are taken (the first ones).
    private var inlineCount = 0
    // Homogeneous tuples: laid out as C arrays, read through a pointer to their first element
    // (not as raw bytes bound to the element: a tuple's size stops at its last element's size,
    // short of its stride, so a byte count divided by the stride loses the last place).
    private var ssrcs: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var counters:
        (
            SRTPRolloverCounter, SRTPRolloverCounter, SRTPRolloverCounter, SRTPRolloverCounter,
            SRTPRolloverCounter, SRTPRolloverCounter, SRTPRolloverCounter, SRTPRolloverCounter
        ) = (Self.unused, Self.unused, Self.unused, Self.unused, Self.unused, Self.unused, Self.unused, Self.unused)
    private var overflow: [UInt32: SRTPRolloverCounter] = [:]
    /// What a free inline place holds.
    private static let unused = SRTPRolloverCounter(first: 0)

    var count: Int { inlineCount + overflow.count }

    func position(of ssrc: UInt32) -> Position? {
        let found = withUnsafePointer(to: ssrcs) { tuple -> Int? in
            tuple.withMemoryRebound(to: UInt32.self, capacity: Self.inlineCapacity) { ssrcs in
                for index in 0..<inlineCount where ssrcs[index] == ssrc { return index }
                return nil
            }
        }
        if let found { return .inline(found) }
        guard !overflow.isEmpty else { return nil }
        return overflow.index(forKey: ssrc).map(Position.overflow)
    }

    func counter(at position: Position) -> SRTPRolloverCounter {
        switch position {
        case .inline(let index):
            precondition(index >= 0 && index < inlineCount)
            return withUnsafePointer(to: counters) { tuple in
                tuple.withMemoryRebound(to: SRTPRolloverCounter.self, capacity: Self.inlineCapacity) { $0[index] }
            }
        case .overflow(let index):
            return overflow.values[index]
        }
    }

    /// Keeps `counter` for `ssrc`: in its place when it had one (`position`), else in the
    /// first free inline place, else in the dictionary.
    mutating func store(_ counter: SRTPRolloverCounter, for ssrc: UInt32, at position: Position?) {
        switch position {
        case .inline(let index):
            setInline(counter, at: index)
        case .overflow(let index):
            overflow.values[index] = counter
        case nil where inlineCount < Self.inlineCapacity:
            let place = inlineCount
            withUnsafeMutablePointer(to: &ssrcs) { tuple in
                tuple.withMemoryRebound(to: UInt32.self, capacity: Self.inlineCapacity) { $0[place] = ssrc }
            }
            setInline(counter, at: place)
            inlineCount += 1
        case nil:
            overflow[ssrc] = counter
        }
    }

    private mutating func setInline(_ counter: SRTPRolloverCounter, at index: Int) {
        precondition(index >= 0 && index < Self.inlineCapacity)
        withUnsafeMutablePointer(to: &counters) { tuple in
            tuple.withMemoryRebound(to: SRTPRolloverCounter.self, capacity: Self.inlineCapacity) { $0[index] = counter }
        }
    }
}
