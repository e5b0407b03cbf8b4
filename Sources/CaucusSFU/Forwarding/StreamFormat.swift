import CaucusMedia

/// What one peer negotiated for one media section with the server: the codec the answer chose
/// (with the peer's own payload type) and the header-extension IDs the answer kept, by URI.
/// Browsers and aiortc number both their own way, so a packet crosses from a publisher's
/// format to a subscriber's through a ``HeaderTranslation``.
public struct StreamFormat: Hashable, Sendable {
    public var codec: SDPCodec
    public var headerExtensionIDs: [String: UInt8]
    /// The peer's payload type for redundant audio (RFC 2198) wrapping `codec`, when the
    /// answer kept it; nil: the peer neither sends nor receives RED.
    public var redundancyPayloadType: UInt8?
    /// The peer's payload type for retransmissions of `codec` (RFC 4588 RTX, `apt` naming it),
    /// when the answer kept it; nil: repairs travel on the media SSRC.
    public var retransmissionPayloadType: UInt8?

    public init(
        codec: SDPCodec, headerExtensionIDs: [String: UInt8] = [:], redundancyPayloadType: UInt8? = nil,
        retransmissionPayloadType: UInt8? = nil
    ) {
        self.codec = codec
        self.headerExtensionIDs = headerExtensionIDs
        self.redundancyPayloadType = redundancyPayloadType
        self.retransmissionPayloadType = retransmissionPayloadType
    }

    /// Whether what a peer sends in this format decodes in `other`: the same codec name
    /// (case-insensitive), clock rate and channel count; for H.264 also the same
    /// packetization mode and profile (`profile-level-id`'s first byte; the level may differ).
    public func carriesSameCodec(as other: StreamFormat) -> Bool {
        let mine = codec
        let theirs = other.codec
        guard mine.name.lowercased() == theirs.name.lowercased(), mine.clockRate == theirs.clockRate,
            (mine.channels ?? 1) == (theirs.channels ?? 1)
        else { return false }
        guard mine.name.lowercased() == "h264" else { return true }
        let (ours, others) = (mine.parameters, theirs.parameters)
        guard (ours["packetization-mode"] ?? "0") == (others["packetization-mode"] ?? "0") else { return false }
        return Self.profile(ours["profile-level-id"]) == Self.profile(others["profile-level-id"])
    }

    /// H.264's `profile_idc`, the first byte of `profile-level-id` (RFC 6184 §8.1; 0x42,
    /// constrained baseline, when absent).
    private static func profile(_ profileLevelID: String?) -> UInt8? {
        guard let value = profileLevelID, value.count == 6 else { return 0x42 }
        return UInt8(value.prefix(2), radix: 16)
    }
}
