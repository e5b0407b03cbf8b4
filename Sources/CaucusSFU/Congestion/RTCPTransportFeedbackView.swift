/// A transport-cc feedback's control information (``RTCPTransportFeedback``'s fields) read
/// where it lies: checked whole when made (nil for what ``RTCPTransportFeedback`` refuses),
/// then read as one arrival delta per sequence number from the base, unpacked from the status
/// chunks and the delta bytes as they are walked. A subscriber sends one every 50–100 ms;
/// reading one this way allocates nothing.
public struct RTCPTransportFeedbackView: Sequence {
    private let fci: ArraySlice<UInt8>
    /// Where the deltas begin, after the last status chunk.
    private let deltas: Int
    public let baseSequenceNumber: UInt16
    /// 24 bits, multiples of 64 ms: the time the first delta counts from.
    public let referenceTime: UInt32
    public let feedbackCount: UInt8
    /// How many sequence numbers it reports on, from the base.
    public let statusCount: Int

    /// The most sequence numbers one feedback is read for: a few seconds of a subscriber's
    /// packets, far more than the 50–100 ms a stack reports on. The count is 16 bits, and a
    /// run-length chunk of two bytes says 8,191 of them: 65,535 read twice per feedback of 44
    /// bytes cost what its size does not say.
    public static let maximumStatusCount = 8_192

    public init?(feedbackControlInformation fci: ArraySlice<UInt8>) {
        guard fci.count >= 8 else { return nil }
        let start = fci.startIndex
        statusCount = Int(fci[start + 2]) << 8 | Int(fci[start + 3])
        guard statusCount <= Self.maximumStatusCount else { return nil }
        // The whole walk, once: every chunk there, no reserved symbol, every delta's bytes there.
        var symbols = StatusSymbols(fci: fci, count: statusCount)
        var deltaBytes = 0
        while let symbol = symbols.next() {
            guard symbol != 3 else { return nil }
            deltaBytes += Int(symbol)
        }
        guard !symbols.ranOut, symbols.offset + deltaBytes <= fci.endIndex else { return nil }
        self.fci = fci
        deltas = symbols.offset
        baseSequenceNumber = UInt16(fci[start]) << 8 | UInt16(fci[start + 1])
        referenceTime = UInt32(fci[start + 4]) << 16 | UInt32(fci[start + 5]) << 8 | UInt32(fci[start + 6])
        feedbackCount = fci[start + 7]
    }

    public func makeIterator() -> Iterator { Iterator(symbols: StatusSymbols(fci: fci, count: statusCount), delta: deltas) }

    /// One entry per sequence number from the base: nil when not received, else its arrival
    /// delta in 250 µs units (as ``RTCPTransportFeedback/deltas``).
    public struct Iterator: IteratorProtocol {
        private var symbols: StatusSymbols
        private var delta: Int

        init(symbols: StatusSymbols, delta: Int) {
            self.symbols = symbols
            self.delta = delta
        }

        public mutating func next() -> Int16?? {
            // Checked whole when made: every symbol is 0, 1 or 2, and its bytes are there.
            guard let symbol = symbols.next() else { return nil }
            let fci = symbols.fci
            switch symbol {
            case 1:
                defer { delta += 1 }
                return .some(Int16(fci[delta]))
            case 2:
                defer { delta += 2 }
                return .some(Int16(bitPattern: UInt16(fci[delta]) << 8 | UInt16(fci[delta + 1])))
            default:
                return .some(nil)
            }
        }
    }

    /// The packet status symbols (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1),
    /// chunk by chunk: 0 not received, 1 a one-byte delta, 2 a two-byte one, 3 reserved.
    struct StatusSymbols {
        let fci: ArraySlice<UInt8>
        /// The next chunk's place; after the walk, where the deltas begin.
        private(set) var offset: Int
        private var remaining: Int
        /// The chunk being unpacked, and how many of its symbols are still to come.
        private var chunk: UInt16 = 0
        private var left = 0
        private var index = 0
        /// Whether the chunks ended before `count` symbols.
        private(set) var ranOut = false

        init(fci: ArraySlice<UInt8>, count: Int) {
            self.fci = fci
            offset = fci.startIndex + 8
            remaining = count
        }

        mutating func next() -> UInt8? {
            guard remaining > 0 else { return nil }
            while left == 0 {
                guard offset + 2 <= fci.endIndex else {
                    ranOut = true
                    remaining = 0
                    return nil
                }
                chunk = UInt16(fci[offset]) << 8 | UInt16(fci[offset + 1])
                offset += 2
                index = 0
                // A run length chunk names one symbol and how often; a status vector holds
                // 14 one-bit symbols or 7 two-bit ones. None goes past the count.
                let capacity = chunk & 0x8000 == 0 ? Int(chunk & 0x1FFF) : chunk & 0x4000 == 0 ? 14 : 7
                left = Swift.min(capacity, remaining)
            }
            left -= 1
            remaining -= 1
            defer { index += 1 }
            if chunk & 0x8000 == 0 { return UInt8(chunk >> 13 & 0b11) }
            if chunk & 0x4000 == 0 { return UInt8(chunk >> (13 - index) & 1) }
            return UInt8(chunk >> (12 - 2 * index) & 0b11)
        }
    }
}
