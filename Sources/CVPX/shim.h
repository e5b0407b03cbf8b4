// libvpx (Debian's libvpx-dev), for CaucusCodecs. The init macros (ABI versions) and
// vpx_codec_control (variadic) cannot be called from Swift: wrapped here.
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

static inline vpx_codec_err_t caucus_vp8_encoder_init(vpx_codec_ctx_t *context, const vpx_codec_enc_cfg_t *configuration) {
    return vpx_codec_enc_init(context, vpx_codec_vp8_cx(), configuration, 0);
}

static inline vpx_codec_err_t caucus_vp8_decoder_init(vpx_codec_ctx_t *context) {
    return vpx_codec_dec_init(context, vpx_codec_vp8_dx(), NULL, 0);
}

static inline vpx_codec_err_t caucus_vp8_set_cpu_used(vpx_codec_ctx_t *context, int cpuUsed) {
    return vpx_codec_control(context, VP8E_SET_CPUUSED, cpuUsed);
}

static inline vpx_codec_err_t caucus_vpx_encode(vpx_codec_ctx_t *context, const vpx_image_t *image, vpx_codec_pts_t pts, int forceKeyframe) {
    return vpx_codec_encode(context, image, pts, 1, forceKeyframe ? VPX_EFLAG_FORCE_KF : 0, VPX_DL_REALTIME);
}

static inline int caucus_vpx_packet_is_frame(const vpx_codec_cx_pkt_t *packet) {
    return packet->kind == VPX_CODEC_CX_FRAME_PKT;
}

static inline int caucus_vpx_packet_is_keyframe(const vpx_codec_cx_pkt_t *packet) {
    return (packet->data.frame.flags & VPX_FRAME_IS_KEY) != 0;
}
