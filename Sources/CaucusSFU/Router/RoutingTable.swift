import CaucusMedia

/// Where one incoming packet goes: a subscriber's slot.
public struct SlotDestination: Hashable, Sendable {
    public let subscriber: Int
    public let slot: SlotID

    public init(subscriber: Int, slot: SlotID) {
        self.subscriber = subscriber
        self.slot = slot
    }
}

/// What the forwarding path reads for each packet: incoming SSRC → the slots it fills. A
/// value: whoever routes changes its own copy route by route (`add`, `remove`, in time
/// proportional to the slots that changed) and the packet path reads whichever table it was
/// last given, whole, with no lock.
public struct RoutingTable: Sendable {
    private var destinationsBySSRC: [UInt32: [SlotDestination]]

    public static let empty = RoutingTable(destinations: [:])

    private init(destinations: [UInt32: [SlotDestination]]) { destinationsBySSRC = destinations }

    /// The table for these assignments. A stream whose incoming SSRC is not known yet (its
    /// publisher has not sent) routes nothing.
    public init(assignments: [Int: SlotAssignment], incomingSSRC: [PublishedStream: UInt32]) {
        var table: [UInt32: [SlotDestination]] = [:]
        for (subscriber, assignment) in assignments {
            for (slot, stream) in assignment.sources {
                guard let ssrc = incomingSSRC[stream] else { continue }
                table[ssrc, default: []].append(SlotDestination(subscriber: subscriber, slot: slot))
            }
        }
        for ssrc in table.keys {
            table[ssrc]?.sort { ($0.subscriber, $0.slot) < ($1.subscriber, $1.slot) }
        }
        self.init(destinations: table)
    }

    /// The table for these routes (incoming SSRC, destination), in any order; a destination
    /// named twice for one SSRC counts once.
    public init(routes: [(ssrc: UInt32, destination: SlotDestination)]) {
        var table: [UInt32: [SlotDestination]] = [:]
        for (ssrc, destination) in routes where table[ssrc]?.contains(destination) != true {
            table[ssrc, default: []].append(destination)
        }
        for ssrc in table.keys {
            table[ssrc]?.sort { ($0.subscriber, $0.slot) < ($1.subscriber, $1.slot) }
        }
        self.init(destinations: table)
    }

    /// The slots a packet from `ssrc` fills, by subscriber then slot; empty when none.
    public func destinations(of ssrc: UInt32) -> [SlotDestination] { destinationsBySSRC[ssrc] ?? [] }

    /// Routes `ssrc` to `destination` too (kept in order; once however often it is added).
    public mutating func add(_ destination: SlotDestination, for ssrc: UInt32) {
        var list = destinationsBySSRC.removeValue(forKey: ssrc) ?? []
        let index = Self.position(of: destination, in: list)
        if index == list.endIndex || list[index] != destination { list.insert(destination, at: index) }
        destinationsBySSRC[ssrc] = list
    }

    /// Stops routing `ssrc` to `destination`.
    public mutating func remove(_ destination: SlotDestination, for ssrc: UInt32) {
        guard var list = destinationsBySSRC.removeValue(forKey: ssrc) else { return }
        let index = Self.position(of: destination, in: list)
        if index < list.endIndex, list[index] == destination { list.remove(at: index) }
        if !list.isEmpty { destinationsBySSRC[ssrc] = list }
    }

    /// Where `destination` is or would go in a sorted list, by binary search: a speaker in a
    /// main session of a thousand fills a thousand slots, and a breakout's start takes each
    /// of them out of its list.
    private static func position(of destination: SlotDestination, in list: [SlotDestination]) -> Int {
        var (low, high) = (0, list.count)
        while low < high {
            let middle = (low + high) / 2
            if (list[middle].subscriber, list[middle].slot) < (destination.subscriber, destination.slot) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Every incoming SSRC that goes somewhere.
    public var routedSSRCs: Set<UInt32> { Set(destinationsBySSRC.keys) }
}
