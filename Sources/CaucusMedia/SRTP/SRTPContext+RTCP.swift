extension SRTPContext {
    /// The E flag of the SRTCP index word: the packet's body is encrypted.
    private static let encryptedFlag: UInt32 = 0x8000_0000
    /// The fixed header SRTCP never encrypts: V/P/RC, PT, length, sender SSRC.
    private static let rtcpHeaderLength = 8

    /// Encrypts a (compound) RTCP packet and appends the SRTCP index and tag.
    public func protect(rtcp packet: inout [UInt8]) throws(SRTPError) {
        guard packet.count >= Self.rtcpHeaderLength else { throw .packetTooShort }
        guard packet[0] >> 6 == 2 else { throw .malformedHeader }
        let ssrc = Self.rtcpSSRC(packet)
        let index = outboundRTCPIndex[ssrc] ?? 0
        guard index < Self.encryptedFlag else { throw .indexExhausted }
        let word = (index | Self.encryptedFlag).bigEndianBytes
        let plaintextLength = packet.count
        switch rtcp {
        case .gcm(let gcm, let salt):
            // header || ciphertext || tag || E+index (RFC 7714 §9.1); the AAD is the header
            // and the index word.
            packet.append(contentsOf: repeatElement(0, count: AESGCMContext.tagLength))
            let additionalData = Array(packet[0..<Self.rtcpHeaderLength]) + word
            try packet.withMutableBytes { (bytes) throws(SRTPError) in
                try SRTPNonce.withGCMNonce(salt: salt, ssrc: ssrc, counter: UInt64(index)) {
                    (nonce) throws(SRTPError) in
                    try additionalData.withBytes { (additionalData) throws(SRTPError) in
                        try gcm.seal(
                            nonce: nonce, additionalData: additionalData,
                            buffer: UnsafeMutableRawBufferPointer(rebasing: bytes[Self.rtcpHeaderLength...]),
                            plaintextLength: plaintextLength - Self.rtcpHeaderLength
                        )
                    }
                }
            }
            packet.append(contentsOf: word)
        case .counterMode(let aes, let hmac, let salt):
            // header || ciphertext || E+index || tag (RFC 3711 §3.4); the tag covers the rest.
            packet.append(contentsOf: word)
            let authenticatedLength = packet.count
            packet.append(contentsOf: repeatElement(0, count: 10))
            try packet.withMutableBytes { (bytes) throws(SRTPError) in
                try SRTPNonce.withCounterBlock(salt: salt, ssrc: ssrc, index: UInt64(index)) { iv in
                    aes.apply(
                        iv: iv,
                        to: UnsafeMutableRawBufferPointer(rebasing: bytes[Self.rtcpHeaderLength..<plaintextLength])
                    )
                }
                try Self.withRTCPTag(hmac, UnsafeRawBufferPointer(rebasing: bytes[0..<authenticatedLength])) {
                    (tag) throws(SRTPError) in
                    UnsafeMutableRawBufferPointer(rebasing: bytes[authenticatedLength...]).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: tag[0..<10])
                    )
                }
            }
        }
        outboundRTCPIndex[ssrc] = index + 1
    }

    /// Checks an SRTCP packet's tag and replay state, decrypts it, strips index and tag.
    public func unprotect(srtcp packet: inout [UInt8]) throws(SRTPError) {
        let trailerLength = 4 + rtcp.tagLength
        guard packet.count >= Self.rtcpHeaderLength + trailerLength else { throw .packetTooShort }
        guard packet[0] >> 6 == 2 else { throw .malformedHeader }
        let ssrc = Self.rtcpSSRC(packet)
        let wordOffset: Int
        switch rtcp {
        case .gcm: wordOffset = packet.count - 4
        case .counterMode: wordOffset = packet.count - 10 - 4
        }
        let word =
            UInt32(packet[wordOffset]) << 24 | UInt32(packet[wordOffset + 1]) << 16
            | UInt32(packet[wordOffset + 2]) << 8 | UInt32(packet[wordOffset + 3])
        let index = word & ~Self.encryptedFlag
        let encrypted = word & Self.encryptedFlag != 0
        if let error = inboundRTCP[ssrc]?.check(UInt64(index)) { throw error }
        let plaintextLength: Int
        switch rtcp {
        case .gcm(let gcm, let salt):
            plaintextLength = try Self.openGCM(
                gcm, salt: salt, &packet, ssrc: ssrc, index: index, encrypted: encrypted, wordOffset: wordOffset)
        case .counterMode(let aes, let hmac, let salt):
            try packet.withMutableBytes { (bytes) throws(SRTPError) in
                let received = UnsafeRawBufferPointer(rebasing: bytes[(wordOffset + 4)...])
                try Self.withRTCPTag(hmac, UnsafeRawBufferPointer(rebasing: bytes[0..<(wordOffset + 4)])) {
                    (tag) throws(SRTPError) in
                    guard constantTimeEquals(UnsafeRawBufferPointer(rebasing: tag[0..<10]), received) else {
                        throw .authenticationFailed
                    }
                }
                guard encrypted else { return }
                try SRTPNonce.withCounterBlock(salt: salt, ssrc: ssrc, index: UInt64(index)) { iv in
                    aes.apply(
                        iv: iv, to: UnsafeMutableRawBufferPointer(rebasing: bytes[Self.rtcpHeaderLength..<wordOffset]))
                }
            }
            plaintextLength = wordOffset
        }
        packet.removeLast(packet.count - plaintextLength)
        var window = inboundRTCP[ssrc] ?? SRTPReplayWindow(first: UInt64(index))
        window.accept(UInt64(index))
        inboundRTCP[ssrc] = window
    }

    /// Returns the plaintext length. With E clear the whole packet is associated data and
    /// the tag authenticates an empty plaintext (RFC 7714 §9.2).
    private static func openGCM(
        _ gcm: AESGCMContext,
        salt: [UInt8],
        _ packet: inout [UInt8],
        ssrc: UInt32,
        index: UInt32,
        encrypted: Bool,
        wordOffset: Int
    ) throws(SRTPError) -> Int {
        let tagOffset = wordOffset - AESGCMContext.tagLength
        let associatedEnd = encrypted ? rtcpHeaderLength : tagOffset
        let additionalData = Array(packet[0..<associatedEnd]) + Array(packet[wordOffset..<(wordOffset + 4)])
        let bodyStart = encrypted ? rtcpHeaderLength : tagOffset
        let opened = try packet.withMutableBytes { (bytes) throws(SRTPError) -> Int in
            try SRTPNonce.withGCMNonce(salt: salt, ssrc: ssrc, counter: UInt64(index)) {
                (nonce) throws(SRTPError) -> Int in
                try additionalData.withBytes { (additionalData) throws(SRTPError) -> Int in
                    try gcm.open(
                        nonce: nonce, additionalData: additionalData,
                        buffer: UnsafeMutableRawBufferPointer(rebasing: bytes[bodyStart..<wordOffset])
                    )
                }
            }
        }
        return bodyStart + opened
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

    private static func rtcpSSRC(_ packet: [UInt8]) -> UInt32 {
        UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
    }
}

extension UInt32 {
    fileprivate var bigEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: self >> 24), UInt8(truncatingIfNeeded: self >> 16),
         UInt8(truncatingIfNeeded: self >> 8), UInt8(truncatingIfNeeded: self)]
    }
}
