// With the package's `Codecs` trait only: without it, nothing here needs the library.
#if Codecs
import COpus

/// libopus's encoder at 48 kHz: 16-bit PCM frames in, Opus packets out (what RTP's Opus payload
/// carries, RFC 7587). Not thread-safe: one owner.
public final class OpusEncoder {
    public static let sampleRate: Int32 = 48_000
    public let channels: Int32
    private let encoder: OpaquePointer

    /// `bitsPerSecond` nil: libopus's own choice for the channels and rate.
    public init(channels: Int32 = 2, bitsPerSecond: Int32? = nil) throws(CodecError) {
        var error: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Self.sampleRate, channels, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw Self.failure("opus_encoder_create", error)
        }
        self.encoder = encoder
        self.channels = channels
        if let bitsPerSecond {
            let status = caucus_opus_set_bitrate(encoder, bitsPerSecond)
            guard status == OPUS_OK else {
                opus_encoder_destroy(encoder)
                throw Self.failure("OPUS_SET_BITRATE", status)
            }
        }
    }

    deinit { opus_encoder_destroy(encoder) }

    /// One frame of interleaved samples (2.5, 5, 10, 20, 40 or 60 ms: 960 per channel for 20 ms).
    public func encode(_ samples: [Int16]) throws(CodecError) -> [UInt8] {
        guard !samples.isEmpty else { throw Self.failure("opus_encode", OPUS_BAD_ARG) }
        let frameSize = Int32(samples.count) / channels
        var packet = [UInt8](repeating: 0, count: 1_500)
        let length = samples.withUnsafeBufferPointer { pcm in
            packet.withUnsafeMutableBufferPointer { out in
                // Neither is empty, so neither base address is nil.
                opus_encode(encoder, pcm.baseAddress!, frameSize, out.baseAddress!, Int32(out.count))
            }
        }
        guard length > 0 else { throw Self.failure("opus_encode", length) }
        return Array(packet[..<Int(length)])
    }

    static func failure(_ operation: String, _ code: Int32) -> CodecError {
        CodecError(library: .opus, operation: operation, code: code, reason: String(cString: opus_strerror(code)))
    }
}
#endif
