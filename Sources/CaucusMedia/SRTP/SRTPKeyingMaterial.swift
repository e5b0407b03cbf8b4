/// One direction's SRTP master key and salt, as DTLS-SRTP exports them (RFC 5764 §4.2).
public struct SRTPKeyingMaterial: Sendable, Hashable {
    public var masterKey: [UInt8]
    public var masterSalt: [UInt8]

    public init(masterKey: [UInt8], masterSalt: [UInt8]) {
        self.masterKey = masterKey
        self.masterSalt = masterSalt
    }

    /// Whether the lengths fit `profile`.
    public func fits(_ profile: SRTPProfile) -> Bool {
        masterKey.count == profile.keyLength && masterSalt.count == profile.saltLength
    }
}

extension SRTPKeyingMaterial: CustomStringConvertible {
    /// Never the key itself: keys must not reach logs.
    public var description: String { "SRTPKeyingMaterial(\(masterKey.count)+\(masterSalt.count) bytes)" }
}
