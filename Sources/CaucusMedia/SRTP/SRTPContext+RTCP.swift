extension SRTPContext {
    /// The E flag of the SRTCP index word: the packet's body is encrypted.
    private static let encryptedFlag: UInt32 = 0x8000_0000
    /// The fixed header SRTCP never encrypts: V/P/RC, PT, length, sender SSRC.
    private static let rtcpHeaderLength = 8

    /// Encrypts a (compound) RTCP packet and appends the SRTCP index and tag.
    public func protect(rtcp packet: inout [UInt8]) throws(SRTPError) {
        let length = packet.count
        let trailerLength = 4 + rtcp.tagLength
        packet.append(contentsOf: repeatElement(0, count: trailerLength))
        do {
            _ = try packet.withMutableBytes { (bytes) throws(SRTPError) -> Int in try protect(rtcp: bytes, length: length) }
        } catch {
            packet.removeLast(trailerLength)
            throw error
        }
    }

    /// Checks an SRTCP packet's tag and replay state, decrypts it, strips index and tag.
    public func unprotect(srtcp packet: inout [UInt8]) throws(SRTPError) {
        let length = try packet.withMutableBytes { (bytes) throws(SRTPError) -> Int in try unprotect(srtcp: bytes) }
        packet.removeLast(packet.count - length)
    }

    /// In place, without allocating: the packet is `buffer[..<length]`, and `buffer` has room
    /// for the index word and tag after it. Returns the protected length.
    public func protect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let protectedLength = length + 4 + rtcp.tagLength
        guard length >= 0, buffer.count >= protectedLength else { throw .bufferTooSmall }
        guard length >= Self.rtcpHeaderLength else { throw .packetTooShort }
        guard buffer[0] >> 6 == 2 else { throw .malformedHeader }
        let ssrc = Self.load(buffer, at: 4)
        let index = outboundRTCPIndex[ssrc] ?? 0
        guard index < Self.encryptedFlag else { throw .indexExhausted }
        let word = index | Self.encryptedFlag
        switch rtcp {
        case .gcm(let gcm, let salt):
            // header || ciphertext || tag || E+index (RFC 7714 §9.1); the associated data is
            // the header and the index word.
            try Self.withAdditionalData(header: buffer, word: word) { (additionalData) throws(SRTPError) in
                try SRTPNonce.withGCMNonce(salt: salt, ssrc: ssrc, counter: UInt64(index)) { (nonce) throws(SRTPError) in
                    try gcm.seal(
                        nonce: nonce, additionalData: additionalData,
                        buffer: UnsafeMutableRawBufferPointer(
                            rebasing: buffer[Self.rtcpHeaderLength..<(length + AESGCMContext.tagLength)]),
                        plaintextLength: length - Self.rtcpHeaderLength
                    )
                }
            }
            Self.store(word, into: buffer, at: length + AESGCMContext.tagLength)
        case .counterMode(let aes, let hmac, let salt):
            // header || ciphertext || E+index || tag (RFC 3711 §3.4); the tag covers the rest.
            try SRTPNonce.withCounterBlock(salt: salt, ssrc: ssrc, index: UInt64(index)) { iv in
                aes.apply(iv: iv, to: UnsafeMutableRawBufferPointer(rebasing: buffer[Self.rtcpHeaderLength..<length]))
            }
            Self.store(word, into: buffer, at: length)
            try Self.withRTCPTag(hmac, UnsafeRawBufferPointer(rebasing: buffer[0..<(length + 4)])) {
                (tag) throws(SRTPError) in
                UnsafeMutableRawBufferPointer(rebasing: buffer[(length + 4)..<protectedLength]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: tag[0..<10]))
            }
        }
        outboundRTCPIndex[ssrc] = index + 1
        return protectedLength
    }

    /// In place, without allocating (but for SRTCP sent unencrypted with GCM): `buffer` is
    /// exactly the SRTCP packet. Returns the length of the RTCP packet now at its start.
    /// On failure the bytes are unspecified.
    public func unprotect(srtcp buffer: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        guard buffer.count >= Self.rtcpHeaderLength + 4 + rtcp.tagLength else { throw .packetTooShort }
        guard buffer[0] >> 6 == 2 else { throw .malformedHeader }
        let ssrc = Self.load(buffer, at: 4)
        let wordOffset: Int
        switch rtcp {
        case .gcm: wordOffset = buffer.count - 4
        case .counterMode: wordOffset = buffer.count - 10 - 4
        }
        let word = Self.load(buffer, at: wordOffset)
        let index = word & ~Self.encryptedFlag
        let encrypted = word & Self.encryptedFlag != 0
        let position = inboundRTCP.position(of: ssrc)
        if let position, let error = inboundRTCP.state(at: position).check(UInt64(index)) { throw error }
        let plaintextLength: Int
        switch rtcp {
        case .gcm(let gcm, let salt):
            plaintextLength = try Self.openGCM(gcm, salt: salt, buffer, ssrc: ssrc, word: word, wordOffset: wordOffset)
        case .counterMode(let aes, let hmac, let salt):
            let received = UnsafeRawBufferPointer(rebasing: buffer[(wordOffset + 4)...])
            try Self.withRTCPTag(hmac, UnsafeRawBufferPointer(rebasing: buffer[0..<(wordOffset + 4)])) {
                (tag) throws(SRTPError) in
                guard constantTimeEquals(UnsafeRawBufferPointer(rebasing: tag[0..<10]), received) else {
                    throw .authenticationFailed
                }
            }
            if encrypted {
                try SRTPNonce.withCounterBlock(salt: salt, ssrc: ssrc, index: UInt64(index)) { iv in
                    aes.apply(
                        iv: iv, to: UnsafeMutableRawBufferPointer(rebasing: buffer[Self.rtcpHeaderLength..<wordOffset]))
                }
            }
            plaintextLength = wordOffset
        }
        var window = position.map { inboundRTCP.state(at: $0) } ?? SRTPReplayWindow(first: UInt64(index))
        window.accept(UInt64(index))
        inboundRTCP.accept(window, for: ssrc, at: position)
        return plaintextLength
    }

    /// Returns the plaintext length. With E clear the whole packet is associated data and
    /// the tag authenticates an empty plaintext (RFC 7714 §9.2).
    private static func openGCM(
        _ gcm: AESGCMContext,
        salt: SRTPSalt,
        _ buffer: UnsafeMutableRawBufferPointer,
        ssrc: UInt32,
        word: UInt32,
        wordOffset: Int
    ) throws(SRTPError) -> Int {
        let index = UInt64(word & ~encryptedFlag)
        if word & encryptedFlag != 0 {
            let opened = try withAdditionalData(header: buffer, word: word) { (additionalData) throws(SRTPError) -> Int in
                try SRTPNonce.withGCMNonce(salt: salt, ssrc: ssrc, counter: index) { (nonce) throws(SRTPError) -> Int in
                    try gcm.open(
                        nonce: nonce, additionalData: additionalData,
                        buffer: UnsafeMutableRawBufferPointer(rebasing: buffer[rtcpHeaderLength..<wordOffset]))
                }
            }
            return rtcpHeaderLength + opened
        }
        let tagOffset = wordOffset - AESGCMContext.tagLength
        let additionalData = Array(buffer[0..<tagOffset]) + Array(buffer[wordOffset..<(wordOffset + 4)])
        _ = try additionalData.withBytes { (additionalData) throws(SRTPError) -> Int in
            try SRTPNonce.withGCMNonce(salt: salt, ssrc: ssrc, counter: index) { (nonce) throws(SRTPError) -> Int in
                try gcm.open(
                    nonce: nonce, additionalData: additionalData,
                    buffer: UnsafeMutableRawBufferPointer(rebasing: buffer[tagOffset..<wordOffset]))
            }
        }
        return tagOffset
    }

    /// The 12 bytes GCM authenticates besides the ciphertext: the header and the index word.
    private static func withAdditionalData<R>(
        header buffer: UnsafeMutableRawBufferPointer,
        word: UInt32,
        _ body: (UnsafeRawBufferPointer) throws(SRTPError) -> R
    ) throws(SRTPError) -> R {
        var additionalData: (UInt64, UInt32) = (0, 0)
        withUnsafeMutableBytes(of: &additionalData) { bytes in
            bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<rtcpHeaderLength]))
            store(word, into: bytes, at: rtcpHeaderLength)
        }
        return try withUnsafeBytes(of: &additionalData) { (bytes) throws(SRTPError) -> R in
            try body(UnsafeRawBufferPointer(rebasing: bytes[0..<(rtcpHeaderLength + 4)]))
        }
    }

    private static func withRTCPTag(
        _ hmac: HMACSHA1Context,
        _ authenticated: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(SRTPError) -> Void
    ) throws(SRTPError) {
        var tag: (UInt64, UInt64, UInt32) = (0, 0, 0)
        try withUnsafeMutableBytes(of: &tag) { (tag) throws(SRTPError) in
            try hmac.authenticate(authenticated, UnsafeRawBufferPointer(start: nil, count: 0), into: tag)
        }
        try withUnsafeBytes(of: &tag) { (tag) throws(SRTPError) in try body(tag) }
    }

    private static func load(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16 | UInt32(buffer[offset + 2]) << 8
            | UInt32(buffer[offset + 3])
    }

    private static func store(_ word: UInt32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        for i in 0..<4 { buffer[offset + i] = UInt8(truncatingIfNeeded: word >> (24 - 8 * i)) }
    }
}
