/// H.264's Annex B byte stream (ITU-T H.264 Annex B): NAL units each preceded by a start code,
/// `00 00 01` or `00 00 00 01`. Encoders such as x264 and libavcodec write it and decoders
/// read it; RTP carries the NAL units without start codes.
public enum H264AnnexB {
    /// The NAL units of a byte stream, without start codes or the zero bytes that pad between
    /// them (a NAL unit never ends in a zero byte: its RBSP trailing bits end in a one). Bytes
    /// before the first start code are not a NAL unit and are skipped.
    public static func nalUnits(in stream: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var index = 0
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 {
                if let start { append(stream[start..<index], to: &units) }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let start { append(stream[start...], to: &units) }
        return units
    }

    /// A byte stream of `nalUnits`, each after a four-byte start code.
    public static func stream(of nalUnits: [[UInt8]]) -> [UInt8] {
        var stream: [UInt8] = []
        stream.reserveCapacity(nalUnits.reduce(0) { $0 + 4 + $1.count })
        for unit in nalUnits { stream += [0, 0, 0, 1] + unit }
        return stream
    }

    private static func append(_ bytes: ArraySlice<UInt8>, to units: inout [[UInt8]]) {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 { end -= 1 }
        if end > bytes.startIndex { units.append(Array(bytes[bytes.startIndex..<end])) }
    }
}
