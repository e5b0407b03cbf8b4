import CaucusMedia

/// An H.264 track as a Matroska file holds it: each access unit (Annex B, as CaucusMedia's
/// ``FrameAssembler`` gives it) becomes a block of NAL units each after its length in four
/// bytes, and a keyframe says which ``AVCDecoderConfiguration`` its file needs.
///
/// The parameter sets are the last ones seen (a keyframe without SPS and PPS uses those of an
/// earlier access unit); before any, a keyframe has no configuration and cannot start a file.
/// The blocks keep every NAL unit, SPS, PPS and access unit delimiters included: in-band
/// parameter sets are allowed in `V_MPEG4/ISO/AVC` blocks, cost a few bytes per keyframe, and
/// let a decoder that starts at any keyframe (or a cut file's reader) decode without the
/// track's CodecPrivate; dropping them would gain nothing and lose that.
struct H264TrackFormat: Sendable {
    private(set) var sequenceParameterSets: [[UInt8]] = []
    private(set) var pictureParameterSets: [[UInt8]] = []

    static let pictureParameterSetType: UInt8 = 8

    /// One access unit: its block, and for a keyframe the track codec of the file it belongs
    /// in (nil when no SPS and PPS that parse were seen yet).
    mutating func take(_ accessUnit: [UInt8], isKeyframe: Bool) -> (block: [UInt8], codec: WebMTrack.Codec?) {
        let units = H264AnnexB.nalUnits(in: accessUnit)
        let sequence = units.filter { $0[0] & 0x1F == H264SequenceParameterSet.nalUnitType }
        let picture = units.filter { $0[0] & 0x1F == Self.pictureParameterSetType }
        if !sequence.isEmpty { sequenceParameterSets = Self.distinct(sequence) }
        if !picture.isEmpty { pictureParameterSets = Self.distinct(picture) }
        let block = units.flatMap { AVCDecoderConfiguration.lengthPrefixed($0, lengthBytes: 4) }
        guard isKeyframe,
            let configuration = AVCDecoderConfiguration(sequenceParameterSets: sequenceParameterSets, pictureParameterSets: pictureParameterSets)
        else { return (block, nil) }
        return (block, .h264(configuration))
    }

    /// In order, each once (an encoder may repeat a set within an access unit).
    private static func distinct(_ units: [[UInt8]]) -> [[UInt8]] {
        var seen: Set<[UInt8]> = []
        return units.filter { seen.insert($0).inserted }
    }
}
