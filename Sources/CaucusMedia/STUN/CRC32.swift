/// CRC-32 as in ISO-HDLC / zlib (reflected polynomial 0xEDB88320), which STUN's FINGERPRINT
/// uses (RFC 5389 §15.5). A checksum, not cryptography.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func checksum(_ bytes: [UInt8], count: Int? = nil) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes.prefix(count ?? bytes.count) {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
