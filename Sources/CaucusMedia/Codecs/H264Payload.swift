/// H.264 over RTP in packetization mode 1 (RFC 6184 §5.7, non-interleaved): one access unit's
/// NAL units as single NAL unit packets (types 1–23), small neighbours aggregated into one
/// STAP-A (24), a NAL unit larger than the budget cut into FU-As (28); and the NAL units read
/// back from such payloads.
///
/// Input is the access unit's list of NAL units without start codes (from an Annex B stream,
/// ``H264AnnexB/nalUnits(in:)``; from VideoToolbox's AVCC, by dropping each length prefix).
public enum H264Payload {
    static let stapA: UInt8 = 24
    static let fuA: UInt8 = 28

    /// The payloads for one access unit, in order. Consecutive NAL units that fit in one
    /// STAP-A together (such as SPS and PPS before an IDR slice) share one; a NAL unit that
    /// fits alone is a single NAL unit packet; a larger one is split into FU-As of equal size
    /// (within one byte). `maximumPayloadSize` counts the payload headers.
    public static func payloads(for nalUnits: [[UInt8]], maximumPayloadSize: Int) throws(RTPPacketizationError) -> [[UInt8]] {
        guard !nalUnits.isEmpty else { throw .emptyFrame }
        // An FU-A needs its two header bytes and one byte of the NAL unit.
        guard maximumPayloadSize >= 3 else { throw .payloadBudgetTooSmall(maximumPayloadSize) }
        for unit in nalUnits {
            guard let header = unit.first else { throw .emptyFrame }
            let type = header & 0x1F
            guard (1...23).contains(type) else { throw .unsupportedNALUnitType(type) }
        }
        var payloads: [[UInt8]] = []
        var index = 0
        while index < nalUnits.count {
            let unit = nalUnits[index]
            guard unit.count <= maximumPayloadSize else {
                payloads += fragments(of: unit, maximumPayloadSize: maximumPayloadSize)
                index += 1
                continue
            }
            // Gather the following NAL units while a STAP-A of them fits: a one-byte header,
            // then each unit after its two-byte size.
            var end = index + 1
            var aggregateSize = 1 + 2 + unit.count
            while end < nalUnits.count, aggregateSize + 2 + nalUnits[end].count <= maximumPayloadSize {
                aggregateSize += 2 + nalUnits[end].count
                end += 1
            }
            payloads.append(end - index == 1 ? unit : aggregate(nalUnits[index..<end]))
            index = end
        }
        return payloads
    }

    /// RFC 6184 §5.7.1: F is the OR of the units' F bits, NRI their largest NRI.
    private static func aggregate(_ units: ArraySlice<[UInt8]>) -> [UInt8] {
        let forbidden = units.reduce(UInt8(0)) { $0 | $1[0] & 0x80 }
        let importance = units.map { $0[0] & 0x60 }.max() ?? 0
        var payload: [UInt8] = [forbidden | importance | stapA]
        for unit in units {
            payload += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit
        }
        return payload
    }

    /// RFC 6184 §5.8: the FU indicator keeps F and NRI, the FU header the type, S on the first
    /// fragment and E on the last; the NAL unit's own header byte is not repeated.
    private static func fragments(of unit: [UInt8], maximumPayloadSize: Int) -> [[UInt8]] {
        let indicator = unit[0] & 0xE0 | fuA
        let type = unit[0] & 0x1F
        let body = unit.dropFirst()
        let ranges = EvenSplit.ranges(of: body.count, budget: maximumPayloadSize - 2)
        return ranges.enumerated().map { index, range in
            let start: UInt8 = index == 0 ? 0x80 : 0
            let end: UInt8 = index == ranges.count - 1 ? 0x40 : 0
            return [indicator, start | end | type] + body[(body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)]
        }
    }

    /// The NAL units of one access unit's payloads, or nil when they do not form whole NAL
    /// units: a type mode 1 does not carry, a STAP-A whose sizes overrun it or that holds an
    /// empty unit, FU-As that do not run from one S to one E with one type and no other
    /// payload between. A key frame is an access unit with an IDR slice (type 5).
    static func nalUnits(from payloads: [ArraySlice<UInt8>]) -> [[UInt8]]? {
        var units: [[UInt8]] = []
        var fragmented: [UInt8]?
        for payload in payloads {
            guard let header = payload.first else { return nil }
            let type = header & 0x1F
            if var partial = fragmented {
                guard type == fuA, payload.count >= 3 else { return nil }
                let fragment = payload[payload.startIndex + 1]
                guard fragment & 0x80 == 0, fragment & 0x1F == partial[0] & 0x1F else { return nil }
                // Appended in place (the optional emptied first, so the buffer is not shared):
                // a new array per fragment copied the unit so far each time, quadratic in its
                // fragments (a thousand of them, hundreds of megabytes copied).
                fragmented = nil
                partial.append(contentsOf: payload.dropFirst(2))
                if fragment & 0x40 != 0 {
                    units.append(partial)
                } else {
                    fragmented = partial
                }
                continue
            }
            switch type {
            case 1...23:
                units.append(Array(payload))
            case stapA:
                var index = payload.startIndex + 1
                guard index < payload.endIndex else { return nil }
                while index < payload.endIndex {
                    guard index + 1 < payload.endIndex else { return nil }
                    let size = Int(payload[index]) << 8 | Int(payload[index + 1])
                    index += 2
                    guard size > 0, index + size <= payload.endIndex, (1...23).contains(payload[index] & 0x1F) else { return nil }
                    units.append(Array(payload[index..<(index + size)]))
                    index += size
                }
            case fuA:
                guard payload.count >= 3 else { return nil }
                let fragment = payload[payload.startIndex + 1]
                // A fragmented unit spans at least two FU-As (RFC 6184 §5.8: S and E not both set).
                guard fragment & 0x80 != 0, fragment & 0x40 == 0, (1...23).contains(fragment & 0x1F) else { return nil }
                fragmented = [header & 0xE0 | fragment & 0x1F] + payload.dropFirst(2)
            default:
                return nil
            }
        }
        guard fragmented == nil, !units.isEmpty else { return nil }
        return units
    }

    /// The access unit as an Annex B stream for a decoder, keyed when it holds an IDR slice.
    static func frame(from payloads: [ArraySlice<UInt8>]) -> CodecFrame? {
        guard let units = nalUnits(from: payloads) else { return nil }
        return CodecFrame(bytes: H264AnnexB.stream(of: units), isKeyframe: units.contains { $0[0] & 0x1F == 5 })
    }
}
