// With the package's `Codecs` trait only: without it, nothing here needs the library.
#if Codecs
import CVPX

/// libvpx's VP8 encoder, real-time, constant bitrate, no lag: I420 pictures in, VP8 frames out
/// (what RTP's VP8 payload carries, RFC 7741). Not thread-safe: one owner.
public final class VP8Encoder {
    /// One encoded frame.
    public struct Frame: Hashable, Sendable {
        public var data: [UInt8]
        public var isKeyframe: Bool
    }

    public let width: Int
    public let height: Int
    private var context = vpx_codec_ctx_t()
    private var frameIndex: Int64 = 0

    /// `keyframeInterval`: a keyframe at least every so many frames.
    public init(width: Int, height: Int, kilobitsPerSecond: UInt32 = 500, framesPerSecond: Int32 = 15, keyframeInterval: UInt32 = 300) throws(CodecError) {
        var configuration = vpx_codec_enc_cfg_t()
        var status = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &configuration, 0)
        guard status == VPX_CODEC_OK else { throw Self.failure("vpx_codec_enc_config_default", status, nil) }
        configuration.g_w = UInt32(width)
        configuration.g_h = UInt32(height)
        configuration.g_timebase = vpx_rational(num: 1, den: framesPerSecond)
        configuration.rc_target_bitrate = kilobitsPerSecond
        configuration.rc_end_usage = VPX_CBR
        configuration.g_lag_in_frames = 0
        configuration.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        configuration.kf_mode = VPX_KF_AUTO
        configuration.kf_max_dist = keyframeInterval
        configuration.g_threads = 1
        status = caucus_vp8_encoder_init(&context, &configuration)
        guard status == VPX_CODEC_OK else { throw Self.failure("vpx_codec_enc_init", status, nil) }
        self.width = width
        self.height = height
        // The fastest real-time setting: a load tester encodes many streams.
        status = caucus_vp8_set_cpu_used(&context, 16)
        guard status == VPX_CODEC_OK else {
            vpx_codec_destroy(&context)
            throw Self.failure("VP8E_SET_CPUUSED", status, nil)
        }
    }

    deinit { vpx_codec_destroy(&context) }

    /// Encodes one picture of the encoder's size; `keyframe` forces one (a keyframe request).
    public func encode(_ picture: I420Picture, keyframe: Bool = false) throws(CodecError) -> [Frame] {
        precondition(picture.width == width && picture.height == height, "the encoder's size")
        var image = vpx_image_t()
        var planes = picture.luma + picture.blueDifference + picture.redDifference
        let status = planes.withUnsafeMutableBufferPointer { buffer -> vpx_codec_err_t in
            guard vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, buffer.baseAddress) != nil else {
                return VPX_CODEC_INVALID_PARAM
            }
            return caucus_vpx_encode(&context, &image, frameIndex, keyframe ? 1 : 0)
        }
        guard status == VPX_CODEC_OK else { throw Self.failure("vpx_codec_encode", status, &context) }
        frameIndex += 1
        var frames: [Frame] = []
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(&context, &iterator) {
            guard caucus_vpx_packet_is_frame(packet) != 0, let buffer = packet.pointee.data.frame.buf else { continue }
            let data = Array(UnsafeRawBufferPointer(start: buffer, count: packet.pointee.data.frame.sz))
            frames.append(Frame(data: data, isKeyframe: caucus_vpx_packet_is_keyframe(packet) != 0))
        }
        return frames
    }

    static func failure(_ operation: String, _ status: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) -> CodecError {
        var reason = String(cString: vpx_codec_err_to_string(status))
        if let context, let detail = vpx_codec_error_detail(context) { reason += ": " + String(cString: detail) }
        return CodecError(library: .vpx, operation: operation, code: Int32(status.rawValue), reason: reason)
    }
}
#endif
