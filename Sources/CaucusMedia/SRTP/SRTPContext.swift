/// SRTP and SRTCP for one direction of one DTLS-SRTP association (RFC 3711, RFC 7714):
/// the session keys are derived and the ciphers keyed once, at init; each SSRC keeps its own
/// rollover counter and replay window.
///
/// The outbound context only `protect`s (with the local write key), the inbound one only
/// `unprotect`s (with the peer's). Packets are transformed in place: protecting appends the
/// tag (and the SRTCP index), unprotecting removes them. Every failure is a thrown
/// `SRTPError` that leaves the context as it was; nothing traps on a peer's bytes.
///
/// Not thread-safe: one context belongs to the event loop that owns the peer.
public final class SRTPContext {
    // What a forwarded copy reads is declared first, so it lies in the object's first bytes,
    // beside its header: the RTP transform (its cipher's pointer and salt inline) and the
    // outbound counters (the first few inline). A copy to a subscriber touches the context, and
    // then only BoringSSL's keyed state.
    let rtp: SRTPTransform
    private var outboundRTP = SRTPOutboundCounters()
    public let profile: SRTPProfile
    let rtcp: SRTPTransform

    /// Bounded: the SSRCs are the peer's to choose (``SRTPInboundStreams``).
    private(set) var inboundRTP = SRTPInboundStreams<InboundRTPStream>()
    var outboundRTCPIndex: [UInt32: UInt32] = [:]
    var inboundRTCP = SRTPInboundStreams<SRTPReplayWindow>()

    struct InboundRTPStream {
        var counter: SRTPRolloverCounter
        var window: SRTPReplayWindow
    }

    public init(profile: SRTPProfile, keyingMaterial: SRTPKeyingMaterial) throws(SRTPError) {
        self.profile = profile
        rtp = try SRTPTransform(
            profile: profile,
            keys: try SRTPKeyDerivation.sessionKeys(for: profile, rtcp: false, from: keyingMaterial)
        )
        rtcp = try SRTPTransform(
            profile: profile,
            keys: try SRTPKeyDerivation.sessionKeys(for: profile, rtcp: true, from: keyingMaterial)
        )
    }

    /// Keyed with session keys as they are, skipping derivation: RFC 7714's test vectors are
    /// given this way.
    init(profile: SRTPProfile, rtpKeys: SRTPSessionKeys, rtcpKeys: SRTPSessionKeys) throws(SRTPError) {
        self.profile = profile
        rtp = try SRTPTransform(profile: profile, keys: rtpKeys)
        rtcp = try SRTPTransform(profile: profile, keys: rtcpKeys)
    }

    /// Encrypts an RTP packet's payload and appends its tag.
    public func protect(rtp packet: inout [UInt8]) throws(SRTPError) {
        let length = packet.count
        packet.append(contentsOf: repeatElement(0, count: rtp.tagLength))
        do {
            _ = try packet.withMutableBytes { (bytes) throws(SRTPError) -> Int in try protect(rtp: bytes, length: length) }
        } catch {
            packet.removeLast(rtp.tagLength)
            throw error
        }
    }

    /// Checks an SRTP packet's tag and replay state, decrypts it and strips the tag.
    public func unprotect(srtp packet: inout [UInt8]) throws(SRTPError) {
        let length = try packet.withMutableBytes { (bytes) throws(SRTPError) -> Int in try unprotect(srtp: bytes) }
        packet.removeLast(packet.count - length)
    }

    /// In place, without allocating: the packet is `buffer[..<length]`, and `buffer` has room
    /// for the tag after it. Returns the protected length.
    public func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard length >= 0, buffer.count >= length + rtp.tagLength else { throw .bufferTooSmall }
        let header = try SRTPHeaderView(UnsafeRawBufferPointer(rebasing: buffer[..<length]), trailerLength: 0)
        // One lookup per packet: the stream's counter is read and updated in its place.
        let known = outboundRTP.position(of: header.ssrc)
        var counter = known.map(outboundRTP.counter(at:)) ?? SRTPRolloverCounter(first: header.sequence)
        let index = counter.estimate(header.sequence)
        let protected = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(length + rtp.tagLength)])
        try Self.sealRTP(rtp, protected, header: header, index: index, plaintextLength: length)
        counter.accept(index)
        outboundRTP.store(counter, for: header.ssrc, at: known)
        return protected.count
    }

    /// In place, without allocating: `buffer` is exactly the SRTP packet. Returns the length
    /// of the RTP packet now at its start. On failure the bytes are unspecified.
    public func unprotect(srtp buffer: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        let header = try SRTPHeaderView(UnsafeRawBufferPointer(buffer), trailerLength: rtp.tagLength)
        let position = inboundRTP.position(of: header.ssrc)
        let known = position.map { inboundRTP.state(at: $0) }
        let index = known?.counter.estimate(header.sequence) ?? UInt64(header.sequence)
        if let error = known?.window.check(index) { throw error }
        let plaintextLength = try Self.openRTP(rtp, buffer, header: header, index: index)
        var stream =
            known ?? InboundRTPStream(counter: SRTPRolloverCounter(first: header.sequence), window: .init(first: index))
        stream.counter.accept(index)
        stream.window.accept(index)
        inboundRTP.accept(stream, for: header.ssrc, at: position)
        return plaintextLength
    }

    private static func sealRTP(
        _ transform: SRTPTransform,
        _ bytes: UnsafeMutableRawBufferPointer,
        header: SRTPHeaderView,
        index: UInt64,
        plaintextLength: Int
    ) throws(SRTPError) {
        let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<header.length])
        let body = UnsafeMutableRawBufferPointer(rebasing: bytes[header.length...])
        switch transform {
        case .gcm(let gcm, let salt):
            try SRTPNonce.withGCMNonce(salt: salt, ssrc: header.ssrc, counter: index) { (nonce) throws(SRTPError) in
                try gcm.seal(
                    nonce: nonce, additionalData: headerBytes, buffer: body,
                    plaintextLength: plaintextLength - header.length
                )
            }
        case .counterMode(let aes, let hmac, let salt):
            try SRTPNonce.withCounterBlock(salt: salt, ssrc: header.ssrc, index: index) { iv in
                aes.apply(iv: iv, to: UnsafeMutableRawBufferPointer(rebasing: bytes[header.length..<plaintextLength]))
            }
            try withRTPTag(hmac, UnsafeRawBufferPointer(rebasing: bytes[0..<plaintextLength]), index: index) {
                (tag) throws(SRTPError) in
                UnsafeMutableRawBufferPointer(rebasing: bytes[plaintextLength...]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: tag[0..<10])
                )
            }
        }
    }

    /// Returns the plaintext packet's length.
    private static func openRTP(
        _ transform: SRTPTransform,
        _ bytes: UnsafeMutableRawBufferPointer,
        header: SRTPHeaderView,
        index: UInt64
    ) throws(SRTPError) -> Int {
        let headerBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<header.length])
        switch transform {
        case .gcm(let gcm, let salt):
            let body = UnsafeMutableRawBufferPointer(rebasing: bytes[header.length...])
            return try SRTPNonce.withGCMNonce(salt: salt, ssrc: header.ssrc, counter: index) {
                (nonce) throws(SRTPError) -> Int in
                header.length + (try gcm.open(nonce: nonce, additionalData: headerBytes, buffer: body))
            }
        case .counterMode(let aes, let hmac, let salt):
            let plaintextLength = bytes.count - 10
            let received = UnsafeRawBufferPointer(rebasing: bytes[plaintextLength...])
            try withRTPTag(hmac, UnsafeRawBufferPointer(rebasing: bytes[0..<plaintextLength]), index: index) {
                (tag) throws(SRTPError) in
                guard constantTimeEquals(UnsafeRawBufferPointer(rebasing: tag[0..<10]), received) else {
                    throw .authenticationFailed
                }
            }
            try SRTPNonce.withCounterBlock(salt: salt, ssrc: header.ssrc, index: index) { iv in
                aes.apply(iv: iv, to: UnsafeMutableRawBufferPointer(rebasing: bytes[header.length..<plaintextLength]))
            }
            return plaintextLength
        }
    }

    /// HMAC-SHA1 over the authenticated portion and the rollover counter (RFC 3711 §4.2).
    private static func withRTPTag(
        _ hmac: HMACSHA1Context,
        _ authenticated: UnsafeRawBufferPointer,
        index: UInt64,
        _ body: (UnsafeRawBufferPointer) throws(SRTPError) -> Void
    ) throws(SRTPError) {
        var rollover = UInt32(truncatingIfNeeded: index >> 16).bigEndian
        var tag: (UInt64, UInt64, UInt32) = (0, 0, 0)
        try withUnsafeBytes(of: &rollover) { (rollover) throws(SRTPError) in
            try withUnsafeMutableBytes(of: &tag) { (tag) throws(SRTPError) in
                try hmac.authenticate(authenticated, rollover, into: tag)
            }
        }
        try withUnsafeBytes(of: &tag) { (tag) throws(SRTPError) in try body(tag) }
    }
}
