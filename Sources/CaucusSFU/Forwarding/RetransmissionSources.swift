import CaucusMedia

/// What each publisher's RTX stream (RFC 4588) restores: a part of the ``ForwardingEngine``
/// with state of its own. By RTX SSRC, the publisher, the media SSRC its packets repair and
/// that stream's payload type: learned from a publisher's plan (the RTX SSRCs its offer names)
/// and, for a simulcast layer, from its traffic (its `repaired-rtp-stream-id`); forgotten with
/// the publisher's peer.
struct RetransmissionSources {
    struct Source: Equatable {
        let publisher: Int
        let mediaSSRC: UInt32
        let mediaPayloadType: UInt8
    }

    private var sources: [UInt32: Source] = [:]

    /// What packets on `ssrc` restore; nil when it is no RTX stream known here.
    func source(of ssrc: UInt32) -> Source? { sources[ssrc] }

    /// `user`'s RTX streams as its plan names them: each beside a published stream with a
    /// format (an RTX SSRC without its media stream restores nothing and is not learned).
    mutating func learn(_ user: Int, plan: MediaSlotPlan) {
        for (kind, rtx) in plan.publishedRetransmissionSSRCs {
            guard let media = plan.publishedSSRCs[kind], let format = plan.publishedFormats[kind] else { continue }
            sources[rtx] = Source(publisher: user, mediaSSRC: media, mediaPayloadType: format.codec.payloadType)
        }
    }

    /// A simulcast layer's RTX stream, found in `publisher`'s traffic: it restores `media`.
    mutating func learnLayer(_ rtx: UInt32, of publisher: Int, restoring media: UInt32, payloadType: UInt8) {
        sources[rtx] = Source(publisher: publisher, mediaSSRC: media, mediaPayloadType: payloadType)
    }

    /// Every RTX stream of `user`'s (its peer went, or is replaced).
    mutating func forget(_ user: Int) {
        sources = sources.filter { $0.value.publisher != user }
    }
}
