// CNIOBoringSSL is swift-nio-ssl's vendored BoringSSL, not its public API: the package pins
// swift-nio-ssl with `exact:` and the SRTP known-answer and pylibsrtp tests guard an update.
// Every use of it in SRTP is in this file: the keyed contexts are created once per session
// and reused for every packet (research/media-plane.md: 0.1–1 µs per packet this way against
// 1.6–3.2 µs through swift-crypto's public API, which re-keys on every call).
import CNIOBoringSSL

/// AES-128 in counter mode (RFC 3711 §4.1.1), keyed once.
final class AESCounterModeContext {
    private let key: UnsafeMutablePointer<AES_KEY>

    init(key bytes: [UInt8]) throws(SRTPError) {
        guard bytes.count == 16 else { throw .invalidKeyingMaterial }
        key = .allocate(capacity: 1)
        key.initialize(to: AES_KEY())
        guard AES_set_encrypt_key(bytes, 128, key) == 0 else {
            key.deallocate()
            throw .cipherFailure
        }
    }

    deinit {
        // The schedule is key material: wipe it before the memory is reused.
        OPENSSL_cleanse(key, MemoryLayout<AES_KEY>.size)
        key.deallocate()
    }

    /// XORs the keystream that starts at counter block `iv` (16 bytes) into `buffer`.
    func apply(iv: UnsafeRawBufferPointer, to buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
            let counter = scratch.baseAddress!
            let encryptedCounter = counter + 16
            UnsafeMutableRawPointer(counter).copyMemory(from: iv.baseAddress!, byteCount: 16)
            var used: UInt32 = 0
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            AES_ctr128_encrypt(bytes, bytes, buffer.count, key, counter, encryptedCounter, &used)
        }
    }
}

/// HMAC-SHA1 keyed once; each tag resets the context to that key (RFC 3711 §4.2.1).
final class HMACSHA1Context {
    static let outputLength = 20
    private let context: UnsafeMutablePointer<HMAC_CTX>

    init(key: [UInt8]) throws(SRTPError) {
        guard let context = HMAC_CTX_new() else { throw .cipherFailure }
        self.context = context
        guard HMAC_Init_ex(context, key, key.count, EVP_sha1(), nil) == 1 else { throw .cipherFailure }
    }

    deinit { HMAC_CTX_free(context) }

    /// Writes the 20-byte HMAC of `first || second` into `output`.
    func authenticate(
        _ first: UnsafeRawBufferPointer,
        _ second: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(SRTPError) {
        precondition(output.count >= Self.outputLength)
        var length: UInt32 = 0
        // A null key and digest reuse the key given at init.
        guard HMAC_Init_ex(context, nil, 0, nil, nil) == 1,
            HMAC_Update(context, first.baseAddress?.assumingMemoryBound(to: UInt8.self), first.count) == 1,
            HMAC_Update(context, second.baseAddress?.assumingMemoryBound(to: UInt8.self), second.count) == 1,
            HMAC_Final(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        else { throw .cipherFailure }
    }
}

/// AES-128-GCM with a 16-byte tag (RFC 7714), keyed once.
///
/// A value holding BoringSSL's context pointer itself, beside the object that frees it: a
/// transform keeps it inline in its SRTP context, so a packet's seal reads the pointer from
/// memory already touched instead of first loading a separate object (in profiles of the media
/// loop, that load was half of `sealRTP`'s own samples, a cache miss on every forwarded copy).
struct AESGCMContext {
    static let tagLength = 16
    /// Valid while `owner` lives: it is read only in this value's methods, whose caller holds
    /// the value (and with it `owner`) for the whole call.
    private let context: UnsafeMutablePointer<EVP_AEAD_CTX>
    /// Frees the context when the last copy of this value goes.
    private let owner: Owner

    private final class Owner {
        let context: UnsafeMutablePointer<EVP_AEAD_CTX>
        init(_ context: UnsafeMutablePointer<EVP_AEAD_CTX>) { self.context = context }
        deinit { EVP_AEAD_CTX_free(context) }
    }

    init(key: [UInt8]) throws(SRTPError) {
        guard key.count == 16,
            let context = EVP_AEAD_CTX_new(EVP_aead_aes_128_gcm(), key, key.count, Self.tagLength)
        else { throw .invalidKeyingMaterial }
        self.context = context
        owner = Owner(context)
    }

    /// Encrypts `buffer[..<plaintextLength]` in place and writes the tag right after it;
    /// `buffer` must have room for the tag.
    func seal(
        nonce: UnsafeRawBufferPointer,
        additionalData: UnsafeRawBufferPointer,
        buffer: UnsafeMutableRawBufferPointer,
        plaintextLength: Int
    ) throws(SRTPError) {
        let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var written = 0
        guard
            EVP_AEAD_CTX_seal(
                context, bytes, &written, buffer.count,
                nonce.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce.count,
                bytes, plaintextLength,
                additionalData.baseAddress?.assumingMemoryBound(to: UInt8.self), additionalData.count
            ) == 1, written == plaintextLength + Self.tagLength
        else { throw .cipherFailure }
    }

    /// Authenticates and decrypts `buffer` (ciphertext then tag) in place; returns the
    /// plaintext length.
    func open(
        nonce: UnsafeRawBufferPointer,
        additionalData: UnsafeRawBufferPointer,
        buffer: UnsafeMutableRawBufferPointer
    ) throws(SRTPError) -> Int {
        guard buffer.count >= Self.tagLength else { throw .packetTooShort }
        let bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var written = 0
        guard
            EVP_AEAD_CTX_open(
                context, bytes, &written, buffer.count,
                nonce.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce.count,
                bytes, buffer.count,
                additionalData.baseAddress?.assumingMemoryBound(to: UInt8.self), additionalData.count
            ) == 1
        else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return written
    }
}

/// Compares two tags in time that does not depend on where they differ.
func constantTimeEquals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    lhs.count == rhs.count && CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
}
