/// The SRTP state of one peer once DTLS-SRTP has keyed it: an outbound context keyed with
/// this side's write key and an inbound one keyed with the peer's (RFC 5764 §4.2). This is
/// the object the UDP shell holds per peer after the handshake.
public final class SRTPSession {
    public let profile: SRTPProfile
    public let outbound: SRTPContext
    public let inbound: SRTPContext

    public init(keys: DTLSSRTPKeys) throws(SRTPError) {
        profile = keys.profile
        outbound = try SRTPContext(profile: keys.profile, keyingMaterial: keys.local)
        inbound = try SRTPContext(profile: keys.profile, keyingMaterial: keys.remote)
    }

    public func protect(rtp packet: inout [UInt8]) throws(SRTPError) {
        try outbound.protect(rtp: &packet)
    }

    public func protect(rtcp packet: inout [UInt8]) throws(SRTPError) {
        try outbound.protect(rtcp: &packet)
    }

    public func unprotect(srtp packet: inout [UInt8]) throws(SRTPError) {
        try inbound.unprotect(srtp: &packet)
    }

    public func unprotect(srtcp packet: inout [UInt8]) throws(SRTPError) {
        try inbound.unprotect(srtcp: &packet)
    }
}
