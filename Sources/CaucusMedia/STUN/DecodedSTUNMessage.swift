import Crypto

/// A STUN message as received, with what is needed to check its MESSAGE-INTEGRITY and
/// FINGERPRINT against the exact bytes that carried it.
public struct DecodedSTUNMessage: Sendable {
    public let message: STUNMessage
    let datagram: [UInt8]
    /// Where the MESSAGE-INTEGRITY attribute's header starts, if there is one.
    let integrityOffset: Int?
    let fingerprintOffset: Int?

    public var hasFingerprint: Bool { fingerprintOffset != nil }

    public init(decoding datagram: [UInt8]) throws(STUNDecodingError) {
        guard datagram.count >= STUNMessage.headerLength else { throw .tooShort }
        var reader = BigEndianReader(datagram)
        guard let rawType = reader.readUInt16(), let type = STUNMessageType(rawValue: rawType),
            let length = reader.readUInt16(), let cookie = reader.readUInt32(),
            cookie == STUNMessage.magicCookie, let idBytes = reader.readBytes(12),
            let transactionID = STUNTransactionID(bytes: idBytes)
        else { throw .notSTUN }
        guard length % 4 == 0, Int(length) + STUNMessage.headerLength == datagram.count else {
            throw .lengthMismatch
        }
        var attributes: [STUNAttribute] = []
        var integrityOffset: Int?
        var fingerprintOffset: Int?
        while !reader.isAtEnd {
            let start = reader.offset
            guard fingerprintOffset == nil else { throw .attributeAfterFingerprint }
            guard let code = reader.readUInt16(), let valueLength = reader.readUInt16(),
                let value = reader.readBytes(Int(valueLength)),
                reader.skip((4 - Int(valueLength) % 4) % 4)
            else { throw .truncatedAttribute }
            let attribute = try Self.attribute(code: code, value: value, transactionID: transactionID)
            switch attribute {
            case .fingerprint:
                fingerprintOffset = start
            case .messageIntegrity where integrityOffset == nil:
                integrityOffset = start
            default:
                // RFC 5389 §15.4: after MESSAGE-INTEGRITY only FINGERPRINT counts.
                if integrityOffset != nil { continue }
            }
            attributes.append(attribute)
        }
        self.message = STUNMessage(type: type, transactionID: transactionID, attributes: attributes)
        self.datagram = datagram
        self.integrityOffset = integrityOffset
        self.fingerprintOffset = fingerprintOffset
    }

    /// True when MESSAGE-INTEGRITY is present and is the HMAC-SHA1 of the message with `key`.
    public func hasValidIntegrity(key: [UInt8]) -> Bool {
        guard let integrityOffset else { return false }
        var covered = Array(datagram[..<integrityOffset])
        covered.storeBigEndian(UInt16(integrityOffset + 24 - STUNMessage.headerLength), at: 2)
        let mac = datagram[(integrityOffset + 4)..<(integrityOffset + 24)]
        return HMAC<Insecure.SHA1>.isValidAuthenticationCode(
            Array(mac), authenticating: covered, using: SymmetricKey(data: key))
    }

    /// True when FINGERPRINT is present and matches; ICE requires it on every check.
    public var hasValidFingerprint: Bool {
        guard let fingerprintOffset else { return false }
        let expected = datagram.loadBigEndianUInt32(at: fingerprintOffset + 4)
        return CRC32.checksum(datagram, count: fingerprintOffset) ^ STUNMessage.fingerprintXor == expected
    }

    private static func attribute(
        code: UInt16, value: [UInt8], transactionID: STUNTransactionID
    ) throws(STUNDecodingError) -> STUNAttribute {
        guard let kind = STUNAttribute.Kind(rawValue: code) else { return .other(type: code, value: value) }
        let malformed = STUNDecodingError.malformedAttribute(type: code)
        var reader = BigEndianReader(value)
        switch kind {
        case .mappedAddress, .xorMappedAddress:
            guard value.count >= 4, value[0] == 0 else { throw malformed }
            let port = value.loadBigEndianUInt16(at: 2)
            let ipBytes = Array(value[4...])
            let isXor = kind == .xorMappedAddress
            let mask = isXor ? STUNMessage.xorMask(transactionID) : Array(repeating: 0, count: 16)
            let plain = zip(ipBytes, mask).map { $0 ^ $1 }
            let ip: IPAddress
            switch (value[1], ipBytes.count) {
            case (0x01, 4):
                ip = .v4(plain.loadBigEndianUInt32(at: 0))
            case (0x02, 16):
                var ipReader = BigEndianReader(plain)
                ip = .v6(high: ipReader.readUInt64()!, low: ipReader.readUInt64()!)
            default:
                throw malformed
            }
            let address = TransportAddress(ip: ip, port: isXor ? port ^ UInt16(STUNMessage.magicCookie >> 16) : port)
            return isXor ? .xorMappedAddress(address) : .mappedAddress(address)
        case .username, .software:
            guard let text = String(validating: value, as: UTF8.self) else { throw malformed }
            return kind == .username ? .username(text) : .software(text)
        case .messageIntegrity:
            guard value.count == 20 else { throw malformed }
            return .messageIntegrity(value)
        case .fingerprint:
            guard value.count == 4, let crc = reader.readUInt32() else { throw malformed }
            return .fingerprint(crc)
        case .errorCode:
            guard value.count >= 4, (3...6).contains(value[2] & 0x07), value[3] < 100,
                let reason = String(validating: value[4...], as: UTF8.self)
            else { throw malformed }
            return .errorCode(STUNErrorCode(code: Int(value[2] & 0x07) * 100 + Int(value[3]), reason: reason))
        case .priority:
            guard value.count == 4, let priority = reader.readUInt32() else { throw malformed }
            return .priority(priority)
        case .useCandidate:
            guard value.isEmpty else { throw malformed }
            return .useCandidate
        case .iceControlled, .iceControlling:
            guard value.count == 8, let tieBreaker = reader.readUInt64() else { throw malformed }
            return kind == .iceControlled ? .iceControlled(tieBreaker: tieBreaker) : .iceControlling(tieBreaker: tieBreaker)
        }
    }
}
