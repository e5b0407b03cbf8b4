/// The AVCDecoderConfigurationRecord of ISO/IEC 14496-15 §5.2.4.1: a Matroska H.264 track's
/// CodecPrivate (`V_MPEG4/ISO/AVC`), telling a decoder the parameter sets and that each NAL
/// unit in a block follows its length in four bytes.
public struct AVCDecoderConfiguration: Hashable, Sendable {
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]
    /// The first SPS, parsed: the profile and level the record states, the picture size.
    public var parameters: H264SequenceParameterSet

    /// Nil without an SPS that parses, without a PPS, with more than 31 SPSs or 255 PPSs, or
    /// with a set longer than 65,535 bytes (what the record's fields hold).
    public init?(sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]]) {
        guard let first = sequenceParameterSets.first, let parameters = H264SequenceParameterSet(nalUnit: first),
            !pictureParameterSets.isEmpty, sequenceParameterSets.count <= 31, pictureParameterSets.count <= 255,
            (sequenceParameterSets + pictureParameterSets).allSatisfy({ !$0.isEmpty && $0.count <= 0xFFFF })
        else { return nil }
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.parameters = parameters
    }

    /// The record's bytes. The high profiles' trailing chroma format and bit depth fields are
    /// left out: decoders (FFmpeg, browsers' Media Source) take them from the SPS, and the 2004
    /// edition of the record, which most readers follow, has none.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = [
            1,  // configurationVersion
            parameters.profileIndication, parameters.profileCompatibility, parameters.levelIndication,
            0xFC | 3,  // six reserved bits, lengthSizeMinusOne: 4-byte lengths
            0xE0 | UInt8(sequenceParameterSets.count),  // three reserved bits, numOfSequenceParameterSets
        ]
        for set in sequenceParameterSets { bytes += Self.lengthPrefixed(set, lengthBytes: 2) }
        bytes.append(UInt8(pictureParameterSets.count))
        for set in pictureParameterSets { bytes += Self.lengthPrefixed(set, lengthBytes: 2) }
        return bytes
    }

    /// `unit` after its length, big-endian, in `lengthBytes` bytes.
    static func lengthPrefixed(_ unit: [UInt8], lengthBytes: Int) -> [UInt8] {
        (0..<lengthBytes).reversed().map { UInt8(truncatingIfNeeded: unit.count >> ($0 * 8)) } + unit
    }
}
