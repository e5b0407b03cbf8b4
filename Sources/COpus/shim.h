// libopus (Debian's libopus-dev), for CaucusCodecs. opus_encoder_ctl is variadic, which Swift
// cannot call: the settings CaucusCodecs uses are wrapped here.
#include <opus.h>

static inline int caucus_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}

static inline int caucus_opus_set_inband_fec(OpusEncoder *encoder, opus_int32 on) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(on));
}
