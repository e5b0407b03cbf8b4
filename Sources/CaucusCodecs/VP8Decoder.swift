// With the package's `Codecs` trait only: without it, nothing here needs the library.
#if Codecs
import CVPX

/// libvpx's VP8 decoder: VP8 frames in, I420 pictures out. Not thread-safe: one owner.
public final class VP8Decoder {
    private var context = vpx_codec_ctx_t()

    public init() throws(CodecError) {
        let status = caucus_vp8_decoder_init(&context)
        guard status == VPX_CODEC_OK else { throw VP8Encoder.failure("vpx_codec_dec_init", status, nil) }
    }

    deinit { vpx_codec_destroy(&context) }

    /// The pictures one frame decodes to (one, or none for a frame that shows nothing).
    public func decode(_ frame: [UInt8]) throws(CodecError) -> [I420Picture] {
        let status = frame.withUnsafeBufferPointer { data in
            vpx_codec_decode(&context, data.baseAddress, UInt32(data.count), nil, 0)
        }
        guard status == VPX_CODEC_OK else { throw VP8Encoder.failure("vpx_codec_decode", status, &context) }
        var pictures: [I420Picture] = []
        var iterator: vpx_codec_iter_t?
        while let image = vpx_codec_get_frame(&context, &iterator) {
            pictures.append(Self.picture(of: image.pointee))
        }
        return pictures
    }

    private static func picture(of image: vpx_image_t) -> I420Picture {
        let (width, height) = (Int(image.d_w), Int(image.d_h))
        func plane(_ index: Int, _ planeWidth: Int, _ planeHeight: Int) -> [UInt8] {
            let stride = Int(withUnsafeBytes(of: image.stride) { $0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self) })
            let base = withUnsafeBytes(of: image.planes) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
            guard let base else { return [UInt8](repeating: 0, count: planeWidth * planeHeight) }
            var out: [UInt8] = []
            out.reserveCapacity(planeWidth * planeHeight)
            for row in 0..<planeHeight { out += UnsafeBufferPointer(start: base + row * stride, count: planeWidth) }
            return out
        }
        return I420Picture(
            width: width, height: height, luma: plane(0, width, height), blueDifference: plane(1, width / 2, height / 2),
            redDifference: plane(2, width / 2, height / 2))
    }
}
#endif
