import CaucusMedia

/// What one peer's transport-wide sequence numbers (the `transport-cc` header extension) say
/// about its packets' arrivals, turned into feedback on a timer: each feedback covers every
/// number from the first not yet covered to the highest seen, the missing ones as not received.
/// Pure: arrivals come with their time, the caller decides when to ask.
///
/// A number below the next feedback's base (its packet came after the feedback that reported it
/// lost) is not reported again; a jump of more than ``restartDistance`` starts over from it (a
/// restarted sender, not 30,000 losses). At most ``maximumPacketsPerFeedback`` numbers are
/// covered by one feedback; older ones past that are given up.
public struct TransportFeedbackRecorder: Sendable {
    public static let restartDistance: Int64 = 10_000
    public static let maximumPacketsPerFeedback: Int64 = 2_000

    /// Arrivals not yet reported, by sequence number unwrapped past the 16-bit wrap.
    private var arrivals: [Int64: Duration] = [:]
    private var highest: Int64?
    /// The first number the next feedback covers.
    private var base: Int64?
    private var feedbackCount: UInt8 = 0

    public init() {}

    public var hasArrivals: Bool { !arrivals.isEmpty }

    public mutating func record(_ sequenceNumber: UInt16, at arrival: Duration) {
        let unwrapped: Int64
        if let highest {
            unwrapped = highest + Int64(Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highest)))
        } else {
            unwrapped = Int64(sequenceNumber)
        }
        if let base, unwrapped - base > Self.restartDistance || base - unwrapped > Self.restartDistance {
            arrivals = [:]
            self.base = nil
            self.highest = nil
        }
        if base == nil { base = unwrapped }
        guard unwrapped >= base! else { return }
        arrivals[unwrapped] = arrival
        highest = max(highest ?? unwrapped, unwrapped)
    }

    /// The feedback for everything recorded since the last one; nil when nothing arrived since.
    public mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> RTCPTransportFeedback? {
        guard let highest, var first = base, !arrivals.isEmpty else { return nil }
        first = max(first, highest - Self.maximumPacketsPerFeedback + 1)
        let received = arrivals.filter { $0.key >= first }.sorted { $0.key < $1.key }
        guard let earliest = received.first else {
            arrivals = [:]
            base = highest + 1
            return nil
        }
        // In microseconds; each delta counts from where the previous one left the receiver's
        // clock (its rounding carried on), as the sender adds them up.
        let referenceUnits = Self.microseconds(earliest.value) / 64_000
        var clock = referenceUnits * 64_000
        var deltas: [Int16?] = Array(repeating: nil, count: Int(highest - first + 1))
        for (sequence, arrival) in received {
            let delta = Int16(clamping: (Self.microseconds(arrival) - clock) / 250)
            deltas[Int(sequence - first)] = delta
            clock += Int64(delta) * 250
        }
        let feedback = RTCPTransportFeedback(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: first),
            referenceTime: UInt32(truncatingIfNeeded: referenceUnits), feedbackCount: feedbackCount, deltas: deltas)
        feedbackCount &+= 1
        arrivals = [:]
        base = highest + 1
        return feedback
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
