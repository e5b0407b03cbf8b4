import Crypto

/// A STUN message (RFC 5389 §6): type, transaction ID and attributes in order.
///
/// MESSAGE-INTEGRITY and FINGERPRINT are computed by ``encoded(integrityKey:fingerprint:)``;
/// a decoded message lists them as they arrived, and the encoder leaves such copies out.
public struct STUNMessage: Hashable, Sendable {
    public static let magicCookie: UInt32 = 0x2112_A442
    static let headerLength = 20
    /// FINGERPRINT's CRC-32 is xor'ed with "STUN" so it cannot match another protocol's CRC.
    static let fingerprintXor: UInt32 = 0x5354_554E

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// The datagram: the attributes in order, then MESSAGE-INTEGRITY keyed with
    /// `integrityKey` (for ICE, the peer's ice-pwd as UTF-8), then FINGERPRINT if asked.
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = false) -> [UInt8] {
        encoded(integrityKey: integrityKey, fingerprint: fingerprint, paddingByte: 0)
    }

    /// `paddingByte` exists so that tests can rebuild RFC 5769's vectors, padded with spaces.
    func encoded(integrityKey: [UInt8]?, fingerprint: Bool, paddingByte: UInt8) -> [UInt8] {
        var datagram: [UInt8] = []
        datagram.reserveCapacity(128)
        datagram.appendBigEndian(type.rawValue)
        datagram.appendBigEndian(UInt16(0))
        datagram.appendBigEndian(Self.magicCookie)
        datagram += transactionID.bytes
        for attribute in attributes {
            switch attribute {
            case .messageIntegrity, .fingerprint:
                continue
            default:
                append(attribute, value: value(of: attribute), to: &datagram, paddingByte: paddingByte)
            }
        }
        if let integrityKey {
            // The HMAC covers the header with a length that already counts this attribute.
            setLength(of: &datagram, to: datagram.count + 24)
            let mac = HMAC<Insecure.SHA1>.authenticationCode(for: datagram, using: SymmetricKey(data: integrityKey))
            append(.messageIntegrity([]), value: Array(mac), to: &datagram, paddingByte: paddingByte)
        }
        if fingerprint {
            setLength(of: &datagram, to: datagram.count + 8)
            var value: [UInt8] = []
            value.appendBigEndian(CRC32.checksum(datagram) ^ Self.fingerprintXor)
            append(.fingerprint(0), value: value, to: &datagram, paddingByte: paddingByte)
        }
        setLength(of: &datagram, to: datagram.count)
        return datagram
    }

    private func setLength(of datagram: inout [UInt8], to totalCount: Int) {
        datagram.storeBigEndian(UInt16(clamping: totalCount - Self.headerLength), at: 2)
    }

    private func append(_ attribute: STUNAttribute, value: [UInt8], to datagram: inout [UInt8], paddingByte: UInt8) {
        datagram.appendBigEndian(attribute.typeCode)
        datagram.appendBigEndian(UInt16(clamping: value.count))
        datagram += value
        let padding = (4 - value.count % 4) % 4
        datagram += Array(repeating: paddingByte, count: padding)
    }

    private func value(of attribute: STUNAttribute) -> [UInt8] {
        var value: [UInt8] = []
        switch attribute {
        case .mappedAddress(let address):
            value = Self.addressValue(port: address.port, ip: address.ip.bytes, family: address.ip)
        case .xorMappedAddress(let address):
            let mask = Self.xorMask(transactionID)
            let ip = zip(address.ip.bytes, mask).map { $0 ^ $1 }
            value = Self.addressValue(port: address.port ^ UInt16(Self.magicCookie >> 16), ip: ip, family: address.ip)
        case .username(let text), .software(let text):
            value = Array(text.utf8)
        case .errorCode(let error):
            value.appendBigEndian(UInt16(0))
            value.append(UInt8(clamping: error.code / 100))
            value.append(UInt8(clamping: error.code % 100))
            value += Array(error.reason.utf8)
        case .priority(let priority):
            value.appendBigEndian(priority)
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker):
            value.appendBigEndian(tieBreaker)
        case .useCandidate:
            break
        case .messageIntegrity(let mac):
            value = mac
        case .fingerprint(let crc):
            value.appendBigEndian(crc)
        case .other(_, let bytes):
            value = bytes
        }
        return value
    }

    private static func addressValue(port: UInt16, ip: [UInt8], family: IPAddress) -> [UInt8] {
        var value: [UInt8] = [0]
        if case .v4 = family { value.append(0x01) } else { value.append(0x02) }
        value.appendBigEndian(port)
        return value + ip
    }

    /// The magic cookie then the transaction ID: what XOR-MAPPED-ADDRESS xors an address with.
    static func xorMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        var mask: [UInt8] = []
        mask.appendBigEndian(magicCookie)
        return mask + transactionID.bytes
    }

    /// The first attribute of a kind, for the common one-of-each lookups.
    public var username: String? {
        attributes.lazy.compactMap { if case .username(let name) = $0 { name } else { nil } }.first
    }

    public var xorMappedAddress: TransportAddress? {
        attributes.lazy.compactMap { if case .xorMappedAddress(let address) = $0 { address } else { nil } }.first
    }

    public var priority: UInt32? {
        attributes.lazy.compactMap { if case .priority(let value) = $0 { value } else { nil } }.first
    }

    public var errorCode: STUNErrorCode? {
        attributes.lazy.compactMap { if case .errorCode(let error) = $0 { error } else { nil } }.first
    }

    public var hasUseCandidate: Bool { attributes.contains(.useCandidate) }

    public var iceControlling: UInt64? {
        attributes.lazy.compactMap { if case .iceControlling(let value) = $0 { value } else { nil } }.first
    }

    public var iceControlled: UInt64? {
        attributes.lazy.compactMap { if case .iceControlled(let value) = $0 { value } else { nil } }.first
    }
}
