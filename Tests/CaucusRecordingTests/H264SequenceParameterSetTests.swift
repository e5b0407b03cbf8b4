import CaucusMediaTestSupport
import Testing

@testable import CaucusRecording

/// The SPS reader on x264's parameter sets (every branch the picture size depends on) and on
/// one written here bit by bit, whose payload needs emulation-prevention bytes.
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct H264SequenceParameterSetTests {
    struct Encoding: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        var profile: UInt8
        var options: [String]
        var testDescription: String { "\(width)x\(height) \(options.joined(separator: " "))" }
    }

    static let encodings: [Encoding] = [
        Encoding(width: 320, height: 240, profile: 66, options: ["-profile:v", "baseline"]),
        // Scaling lists in the SPS (x264's JVT matrices).
        Encoding(width: 176, height: 144, profile: 100, options: ["-profile:v", "high", "-x264-params", "cqm=jvt"]),
        // 4:4:4 (chroma_format_idc 3: twelve scaling list flags, crop units of one sample), cropped.
        Encoding(width: 322, height: 242, profile: 244, options: ["-pix_fmt", "yuv444p", "-x264-params", "cqm=jvt"]),
        // 4:2:2: the crop unit is one row.
        Encoding(width: 330, height: 186, profile: 122, options: ["-pix_fmt", "yuv422p"]),
        // Field coding (frame_mbs_only_flag 0): map units are pairs of macroblock rows.
        Encoding(width: 320, height: 240, profile: 100, options: ["-flags", "+ildct+ilme", "-x264-params", "interlaced=1"]),
        Encoding(width: 352, height: 200, profile: 100, options: ["-flags", "+ildct+ilme", "-x264-params", "interlaced=1"]),
        // 1088 rows coded, 8 cropped.
        Encoding(width: 1920, height: 1080, profile: 77, options: ["-profile:v", "main"]),
    ]

    @Test(arguments: encodings) func x264ParameterSetsGiveThePictureSize(_ encoding: Encoding) async throws {
        let units = try await X264Stream.accessUnits(width: encoding.width, height: encoding.height, seconds: 0.1, options: encoding.options)
        let nal = try #require(units.first.flatMap { X264Stream.units(ofType: 7, in: $0).first })
        let sps = try #require(H264SequenceParameterSet(nalUnit: nal), "\(nal)")
        #expect(sps.width == encoding.width && sps.height == encoding.height, "\(sps)")
        #expect(sps.profileIndication == encoding.profile && sps.profileCompatibility == nal[2] && sps.levelIndication == nal[3])
    }

    @Test func aCutOrForeignUnitIsRefusedWithoutACrash() async throws {
        let units = try await X264Stream.accessUnits(width: 322, height: 242, seconds: 0.1, options: ["-pix_fmt", "yuv444p", "-x264-params", "cqm=jvt"])
        let nal = try #require(units.first.flatMap { X264Stream.units(ofType: 7, in: $0).first })
        // Cut before the cropping offsets are read: no size. (Cuts after them still parse.)
        for length in 0..<min(nal.count, 8) {
            #expect(H264SequenceParameterSet(nalUnit: Array(nal.prefix(length))) == nil, "\(length) bytes")
        }
        for length in 0...nal.count { _ = H264SequenceParameterSet(nalUnit: Array(nal.prefix(length))) }
        #expect(H264SequenceParameterSet(nalUnit: [0x68] + nal.dropFirst()) == nil, "a PPS header")
        #expect(H264SequenceParameterSet(nalUnit: [0x67, 66, 0, 30] + [UInt8](repeating: 0, count: 12)) == nil, "a code longer than 31 bits")
    }

    @Test func emulationPreventionBytesAreRemovedBeforeReading() throws {
        #expect(H264SequenceParameterSet.rbsp(of: [0, 0, 3, 1, 0, 0, 3, 0, 0, 3, 0, 3][...]) == [0, 0, 1, 0, 0, 0, 0, 0, 3])
        // Baseline, picture order count type 1 whose two reference offsets (se 2^20: 21 zeros,
        // a one, 21 zeros) put 42 zero bits in a row: the NAL unit needs an `03`.
        var bits = BitWriter()
        bits.unsigned(0)  // seq_parameter_set_id
        bits.unsigned(0)  // log2_max_frame_num_minus4
        bits.unsigned(1)  // pic_order_cnt_type
        bits.bit(false)  // delta_pic_order_always_zero_flag
        bits.signed(0)
        bits.signed(0)
        bits.unsigned(2)  // num_ref_frames_in_pic_order_cnt_cycle
        bits.signed(1 << 20)
        bits.signed(1 << 20)
        bits.unsigned(1)  // max_num_ref_frames
        bits.bit(false)
        bits.unsigned(39)  // 640 wide
        bits.unsigned(29)  // 480 high
        bits.bit(true)  // frame_mbs_only_flag
        bits.bit(true)  // direct_8x8_inference_flag
        bits.bit(true)  // frame_cropping_flag
        for offset in [1, 2, 3, 4] { bits.unsigned(offset) }
        bits.bit(false)  // vui_parameters_present_flag
        let nal: [UInt8] = [0x67, 66, 0xC0, 31] + bits.nalPayload()
        #expect(nal.count > 4 + bits.rbsp().count, "emulation prevention inserted")
        let sps = try #require(H264SequenceParameterSet(nalUnit: nal))
        #expect(sps.width == 640 - 2 * (1 + 2) && sps.height == 480 - 2 * (3 + 4), "\(sps)")
    }

    @Test func theDecoderConfigurationRecordHoldsTheSetsAfterTheirLengths() throws {
        var bits = BitWriter()
        for value in [0, 0, 2, 1] { bits.unsigned(value) }  // id, frame_num, poc type 2, refs
        bits.bit(false)
        bits.unsigned(19)
        bits.unsigned(14)
        bits.bit(true)
        bits.bit(true)
        bits.bit(false)
        let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F] + bits.nalPayload()
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let configuration = try #require(AVCDecoderConfiguration(sequenceParameterSets: [sps], pictureParameterSets: [pps]))
        #expect(configuration.parameters.width == 320 && configuration.parameters.height == 240)
        #expect(configuration.bytes == [1, 0x42, 0xE0, 0x1F, 0xFF, 0xE1, 0, UInt8(sps.count)] + sps + [1, 0, 4] + pps)
        #expect(AVCDecoderConfiguration(sequenceParameterSets: [sps], pictureParameterSets: []) == nil, "no PPS")
        #expect(AVCDecoderConfiguration(sequenceParameterSets: [], pictureParameterSets: [pps]) == nil, "no SPS")
        #expect(AVCDecoderConfiguration(sequenceParameterSets: [[0x67, 0x42]], pictureParameterSets: [pps]) == nil, "an SPS cut short")
    }
}

/// Writes an RBSP bit by bit with H.264's Exp-Golomb codes, and the NAL unit payload made of it.
struct BitWriter {
    private var bits: [Bool] = []

    mutating func bit(_ value: Bool) { bits.append(value) }

    mutating func unsigned(_ value: Int) {
        let code = value + 1
        let length = Int.bitWidth - code.leadingZeroBitCount
        bits += Array(repeating: false, count: length - 1)
        for shift in (0..<length).reversed() { bits.append(code >> shift & 1 == 1) }
    }

    mutating func signed(_ value: Int) { unsigned(value > 0 ? 2 * value - 1 : -2 * value) }

    /// The bits, then the stop bit and zeros to a byte's end (rbsp_trailing_bits).
    func rbsp() -> [UInt8] {
        let all = bits + [true] + Array(repeating: false, count: (8 - (bits.count + 1) % 8) % 8)
        return stride(from: 0, to: all.count, by: 8).map { start in
            all[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }

    /// The RBSP with an `03` after every two zero bytes followed by a byte of 3 or less.
    func nalPayload() -> [UInt8] {
        var payload: [UInt8] = []
        var zeros = 0
        for byte in rbsp() {
            if zeros >= 2, byte <= 3 {
                payload.append(3)
                zeros = 0
            }
            payload.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return payload
    }
}
