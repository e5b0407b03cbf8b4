// With the package's `Codecs` trait only: without it, nothing here needs the library.
#if Codecs
import COpus

/// libopus's decoder at 48 kHz: Opus packets in, interleaved 16-bit PCM out; a lost packet is
/// concealed. Not thread-safe: one owner.
public final class OpusDecoder {
    public let channels: Int32
    private let decoder: OpaquePointer
    /// The longest frame Opus has: 120 ms at 48 kHz.
    private static let maximumFrame: Int32 = 5_760

    public init(channels: Int32 = 2) throws(CodecError) {
        var error: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(OpusEncoder.sampleRate, channels, &error), error == OPUS_OK else {
            throw OpusEncoder.failure("opus_decoder_create", error)
        }
        self.decoder = decoder
        self.channels = channels
    }

    deinit { opus_decoder_destroy(decoder) }

    /// The samples of one packet; `nil` conceals a lost one (`concealedSamples` per channel).
    public func decode(_ packet: [UInt8]?, concealedSamples: Int32 = 960) throws(CodecError) -> [Int16] {
        var pcm = [Int16](repeating: 0, count: Int(Self.maximumFrame * channels))
        let decoded = pcm.withUnsafeMutableBufferPointer { out -> Int32 in
            // Never nil: the buffer holds the longest frame.
            let samples = out.baseAddress!
            guard let packet, !packet.isEmpty else { return opus_decode(decoder, nil, 0, samples, concealedSamples, 0) }
            return packet.withUnsafeBufferPointer { data in
                opus_decode(decoder, data.baseAddress, Int32(data.count), samples, Self.maximumFrame, 0)
            }
        }
        guard decoded >= 0 else { throw OpusEncoder.failure("opus_decode", decoded) }
        return Array(pcm[..<Int(decoded * channels)])
    }
}
#endif
