import CaucusMedia

/// What one offer says about its user's media, for the router: the receive slots (sections
/// where the server sends) and the publisher's own incoming SSRC per kind (sections where it
/// sends).
///
/// - Receive slots: the offer's `recvonly` and `sendrecv` sections, audio sections → audio
///   slots in order, video sections → video slots in order; a video section whose mid is in
///   `screenShareMids` is a screen-share slot instead. Each gets a fixed outgoing SSRC, chosen
///   by the caller (random, from the shell), announced in the answer (`a=ssrc`), and a
///   retransmission SSRC announced with it (`a=ssrc-group:FID`) where the answer keeps RTX.
/// - Publications: the first `sendonly` or `sendrecv` section of each kind (again video vs
///   screen share by `screenShareMids`) gives that kind's incoming SSRC: its `ssrc-group:FID`'s
///   first member (the media, not its RTX; the second is its RTX), else its lowest `a=ssrc`. A
///   video section offering simulcast (RIDs, `a=simulcast:send`) that the answer accepted
///   publishes its layers instead, whose SSRCs the router learns from the packets' RID
///   extension. Another section without `a=ssrc` publishes nothing the router can route.
public struct MediaSlotPlan: Sendable, Hashable {
    public struct ReceiveSlot: Sendable, Hashable {
        public let mid: String
        public let slot: SlotID
        public let outgoingSSRC: UInt32
        let retransmissionSSRC: UInt32
        /// The codec and extension IDs the answer chose for the slot's section; nil until
        /// ``accept(_:)``.
        var format: StreamFormat?
    }

    public private(set) var receiveSlots: [ReceiveSlot] = []
    private(set) var publishedSSRCs: [StreamKind: UInt32] = [:]
    /// Each publication's RTX SSRC (its FID group's second member), kept only where the answer
    /// negotiated RTX for it.
    private(set) var publishedRetransmissionSSRCs: [StreamKind: UInt32] = [:]
    /// Each simulcast publication's layers (RIDs, in the offer's order), as the answer kept them.
    private(set) var publishedLayers: [StreamKind: [String]] = [:]
    /// The format each publication is sent in, from the answer (its section's codec and IDs).
    private(set) var publishedFormats: [StreamKind: StreamFormat] = [:]
    /// The mid of each publication's section.
    private var publishedMids: [StreamKind: String] = [:]

    public init(offer: SessionDescription, screenShareMids: Set<String> = [], outgoingSSRC: () -> UInt32) {
        var counts: [StreamKind: Int] = [:]
        // Never zero, never twice, never one of the offer's own.
        var used = Set(offer.media.flatMap { $0.ssrcs.keys })
        func fresh() -> UInt32 {
            var ssrc = outgoingSSRC()
            while ssrc == 0 || used.contains(ssrc) { ssrc = outgoingSSRC() }
            used.insert(ssrc)
            return ssrc
        }
        for section in offer.media where section.port != 0 {
            guard let mid = section.mid, let kind = Self.kind(of: section, screenShareMids: screenShareMids) else { continue }
            if section.direction.receives {
                let (ssrc, retransmissionSSRC) = (fresh(), fresh())
                let index = counts[kind, default: 0]
                counts[kind] = index + 1
                receiveSlots.append(ReceiveSlot(
                    mid: mid, slot: SlotID(kind: kind, index: index), outgoingSSRC: ssrc, retransmissionSSRC: retransmissionSSRC))
            }
            if section.direction.sends, publishedMids[kind] == nil {
                if let ssrc = Self.mediaSSRC(of: section) {
                    publishedSSRCs[kind] = ssrc
                    publishedRetransmissionSSRCs[kind] = Self.retransmissionSSRC(of: section)
                    publishedMids[kind] = mid
                } else if section.simulcastSend.count > 1 {
                    // Its layers' SSRCs come with its packets, if the answer keeps simulcast.
                    publishedMids[kind] = mid
                }
            }
        }
    }

    /// Takes the answer's choices: the slots and publications whose sections it accepted (a
    /// codec the server forwards) keep that codec and those extension IDs; the others go.
    public mutating func accept(_ negotiated: [NegotiatedMedia]) {
        var formats: [String: StreamFormat] = [:]
        let layers = Dictionary(negotiated.map { ($0.mid, $0.simulcastLayers) }, uniquingKeysWith: { first, _ in first })
        for media in negotiated {
            guard let codec = media.codec else { continue }
            formats[media.mid] = StreamFormat(
                codec: codec, headerExtensionIDs: media.headerExtensionIDs, redundancyPayloadType: media.redundancy?.payloadType,
                retransmissionPayloadType: media.retransmission?.payloadType)
        }
        receiveSlots = receiveSlots.compactMap { slot in
            guard let format = formats[slot.mid] else { return nil }
            var accepted = slot
            accepted.format = format
            return accepted
        }
        for (kind, mid) in publishedMids {
            if let format = formats[mid], publishedSSRCs[kind] != nil || layers[mid]?.isEmpty == false {
                publishedFormats[kind] = format
                if format.retransmissionPayloadType == nil { publishedRetransmissionSSRCs[kind] = nil }
                if publishedSSRCs[kind] == nil { publishedLayers[kind] = layers[mid] }
            } else {
                publishedSSRCs[kind] = nil
                publishedRetransmissionSSRCs[kind] = nil
                publishedMids[kind] = nil
            }
        }
    }

    /// The outgoing SSRC per mid, for `SDPAnswerOptions.sendingSSRCs`.
    public var sendingSSRCs: [String: UInt32] {
        Dictionary(uniqueKeysWithValues: receiveSlots.map { ($0.mid, $0.outgoingSSRC) })
    }

    /// The retransmission SSRC per mid, for `SDPAnswerOptions.retransmissionSSRCs`.
    public var retransmissionSSRCs: [String: UInt32] {
        Dictionary(uniqueKeysWithValues: receiveSlots.map { ($0.mid, $0.retransmissionSSRC) })
    }

    /// How many slots of each kind: the subscriber's layout.
    var layout: SlotLayout {
        let count = { (kind: StreamKind) in receiveSlots.filter { $0.slot.kind == kind }.count }
        return SlotLayout(audio: count(.audio), video: count(.video), screenShare: count(.screenShare))
    }

    private static func kind(of section: SDPMediaSection, screenShareMids: Set<String>) -> StreamKind? {
        switch section.kind {
        case "audio": .audio
        case "video": section.mid.map(screenShareMids.contains) == true ? .screenShare : .video
        default: nil
        }
    }

    private static func retransmissionSSRC(of section: SDPMediaSection) -> UInt32? {
        guard let fid = section.ssrcGroups.first(where: { $0.semantics == "FID" }), fid.ssrcs.count == 2 else { return nil }
        return fid.ssrcs[1]
    }

    private static func mediaSSRC(of section: SDPMediaSection) -> UInt32? {
        if let fid = section.ssrcGroups.first(where: { $0.semantics == "FID" }), let first = fid.ssrcs.first { return first }
        return section.ssrcs.keys.min()
    }
}
