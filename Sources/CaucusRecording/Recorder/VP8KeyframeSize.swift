/// The picture size a VP8 key frame declares (RFC 6386 §9.1): after the 3-byte frame tag and
/// the start code 9D 01 2A, two little-endian 16-bit fields whose low 14 bits are the width
/// and the height (the top 2 bits are a scaling hint, not part of the size).
enum VP8KeyframeSize {
    static func of(_ frame: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        let at = frame.startIndex
        guard frame.count >= 10, frame[at] & 0x01 == 0, frame[at + 3] == 0x9D, frame[at + 4] == 0x01, frame[at + 5] == 0x2A else { return nil }
        let width = (Int(frame[at + 7]) << 8 | Int(frame[at + 6])) & 0x3FFF
        let height = (Int(frame[at + 9]) << 8 | Int(frame[at + 8])) & 0x3FFF
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }
}
