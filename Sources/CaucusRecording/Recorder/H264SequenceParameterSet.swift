/// What a recording needs of an H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1): the
/// profile, constraint flags and level (bytes 1–3 of the NAL unit, copied into the Matroska
/// track's AVCDecoderConfigurationRecord) and the picture size after cropping (the track's
/// PixelWidth and PixelHeight).
///
/// The NAL unit's payload is read as its RBSP (emulation-prevention bytes `00 00 03` removed),
/// its Exp-Golomb fields in order up to `frame_cropping_flag` and the crop offsets: the high
/// profiles' chroma format, bit depths and scaling lists (skipped, their deltas read), both
/// picture order count types, field coding (`frame_mbs_only_flag` 0: the height counts field
/// pairs of macroblocks) and cropping in the units of the chroma format. Nothing after the
/// cropping (VUI) is read.
public struct H264SequenceParameterSet: Hashable, Sendable {
    public var profileIndication: UInt8
    public var profileCompatibility: UInt8
    public var levelIndication: UInt8
    public var width: Int
    public var height: Int

    /// NAL unit type 7.
    static let nalUnitType: UInt8 = 7

    /// The profiles whose SPS carries chroma format, bit depths and scaling lists (§7.3.2.1.1).
    private static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses a whole SPS NAL unit (its one-byte header first, no start code); nil when it is
    /// not one or a field is out of the standard's range (a picture of no size, say).
    public init?(nalUnit: [UInt8]) {
        guard nalUnit.count >= 4, nalUnit[0] & 0x1F == Self.nalUnitType else { return nil }
        var bits = ExpGolombReader(rbsp: Self.rbsp(of: nalUnit.dropFirst(4)))
        profileIndication = nalUnit[1]
        profileCompatibility = nalUnit[2]
        levelIndication = nalUnit[3]
        guard let size = Self.pictureSize(profile: profileIndication, &bits) else { return nil }
        (width, height) = size
    }

    private static func pictureSize(profile: UInt8, _ bits: inout ExpGolombReader) -> (Int, Int)? {
        guard let parameterSetID = bits.unsigned(), parameterSetID <= 31 else { return nil }
        var chromaFormat = 1
        var separateColourPlanes = false
        if highProfiles.contains(profile) {
            guard let format = bits.unsigned(), format <= 3 else { return nil }
            chromaFormat = format
            if chromaFormat == 3 {
                guard let separate = bits.bit() else { return nil }
                separateColourPlanes = separate
            }
            guard let lumaDepth = bits.unsigned(), lumaDepth <= 6, let chromaDepth = bits.unsigned(), chromaDepth <= 6,
                bits.bit() != nil,  // qpprime_y_zero_transform_bypass_flag
                let scalingMatrixPresent = bits.bit()
            else { return nil }
            if scalingMatrixPresent {
                for list in 0..<(chromaFormat == 3 ? 12 : 8) {
                    guard let present = bits.bit() else { return nil }
                    if present, !skipScalingList(size: list < 6 ? 16 : 64, &bits) { return nil }
                }
            }
        }
        guard let maxFrameNumber = bits.unsigned(), maxFrameNumber <= 12, let orderCountType = bits.unsigned() else { return nil }
        switch orderCountType {
        case 0:
            guard let lsb = bits.unsigned(), lsb <= 12 else { return nil }
        case 1:
            guard bits.bit() != nil, bits.signed() != nil, bits.signed() != nil,
                let cycle = bits.unsigned(), cycle <= 255
            else { return nil }
            for _ in 0..<cycle {
                guard bits.signed() != nil else { return nil }  // offset_for_ref_frame
            }
        case 2:
            break
        default:
            return nil
        }
        guard bits.unsigned() != nil,  // max_num_ref_frames
            bits.bit() != nil,  // gaps_in_frame_num_value_allowed_flag
            let widthInMacroblocks = bits.unsigned(), widthInMacroblocks < 1_024,
            let heightInMapUnits = bits.unsigned(), heightInMapUnits < 1_024,
            let frameMacroblocksOnly = bits.bit()
        else { return nil }
        if !frameMacroblocksOnly, bits.bit() == nil { return nil }  // mb_adaptive_frame_field_flag
        guard bits.bit() != nil, let cropped = bits.bit() else { return nil }  // direct_8x8_inference_flag
        var width = (widthInMacroblocks + 1) * 16
        var height = (frameMacroblocksOnly ? 1 : 2) * (heightInMapUnits + 1) * 16
        if cropped {
            guard let left = bits.unsigned(), let right = bits.unsigned(), let top = bits.unsigned(), let bottom = bits.unsigned(),
                max(left, right, top, bottom) < 16_384
            else { return nil }
            // Crop units (§7.4.2.1.1): chroma samples' spacing, doubled vertically for fields.
            let chromaArrayType = separateColourPlanes ? 0 : chromaFormat
            let unitX = chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2
            let unitY = (chromaArrayType == 1 ? 2 : 1) * (frameMacroblocksOnly ? 1 : 2)
            width -= (left + right) * unitX
            height -= (top + bottom) * unitY
        }
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// Reads past one scaling_list() (§7.3.2.1.1.1): deltas until the list ends or a delta
    /// makes the next scale 0 (the rest then repeat the last).
    private static func skipScalingList(size: Int, _ bits: inout ExpGolombReader) -> Bool {
        var lastScale = 8
        var nextScale = 8
        for _ in 0..<size where nextScale != 0 {
            guard let delta = bits.signed(), (-128...127).contains(delta) else { return false }
            nextScale = (lastScale + delta + 256) % 256
            lastScale = nextScale == 0 ? lastScale : nextScale
        }
        return true
    }

    /// The payload without its emulation-prevention bytes: every `03` after two zero bytes.
    static func rbsp(of payload: ArraySlice<UInt8>) -> [UInt8] {
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(payload.count)
        var zeros = 0
        for byte in payload {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        return rbsp
    }
}

/// Reads an RBSP bit by bit, most significant first, with the Exp-Golomb codes of H.264 §9.1;
/// nil past the end (or for a code longer than 31 bits, which no SPS field has).
struct ExpGolombReader {
    private let bytes: [UInt8]
    private var position = 0

    init(rbsp: [UInt8]) { bytes = rbsp }

    mutating func bit() -> Bool? {
        guard position < bytes.count * 8 else { return nil }
        defer { position += 1 }
        return bytes[position / 8] & (0x80 >> UInt8(position % 8)) != 0
    }

    /// ue(v).
    mutating func unsigned() -> Int? {
        var leadingZeros = 0
        while true {
            guard let bit = bit() else { return nil }
            if bit { break }
            leadingZeros += 1
            guard leadingZeros <= 31 else { return nil }
        }
        var suffix = 0
        for _ in 0..<leadingZeros {
            guard let bit = bit() else { return nil }
            suffix = suffix << 1 | (bit ? 1 : 0)
        }
        return (1 << leadingZeros) - 1 + suffix
    }

    /// se(v): 1, −1, 2, −2, … for codes 1, 2, 3, 4, ….
    mutating func signed() -> Int? {
        guard let code = unsigned() else { return nil }
        return code % 2 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}
