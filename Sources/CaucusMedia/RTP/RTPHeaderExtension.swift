/// An RTP header extension block: RFC 8285's one-byte or two-byte element forms, or another
/// profile's block kept as it came.
public enum RTPHeaderExtension: Hashable, Sendable {
    /// Profile 0xBEDE: IDs 1–14, 1–16 bytes each.
    case oneByte([RTPHeaderExtensionElement])
    /// Profile 0x100X: IDs 1–255, 0–255 bytes each; `appBits` is the profile's low nibble.
    case twoByte(appBits: UInt8, [RTPHeaderExtensionElement])
    case other(profile: UInt16, data: [UInt8])

    static let oneByteProfile: UInt16 = 0xBEDE
    static let twoByteProfile: UInt16 = 0x1000

    public var elements: [RTPHeaderExtensionElement] {
        switch self {
        case .oneByte(let elements), .twoByte(_, let elements): elements
        case .other: []
        }
    }

    /// The data of the element with this negotiated ID (from `a=extmap`), if present.
    public func element(id: UInt8) -> [UInt8]? {
        elements.first { $0.id == id }?.data
    }

    /// The one-byte form if every element fits it, the two-byte form otherwise.
    public init(elements: [RTPHeaderExtensionElement]) {
        let fitsOneByte = elements.allSatisfy { (1...14).contains($0.id) && (1...16).contains($0.data.count) }
        self = fitsOneByte ? .oneByte(elements) : .twoByte(appBits: 0, elements)
    }

    init(profile: UInt16, data: [UInt8]) throws(RTPDecodingError) {
        if profile == Self.oneByteProfile {
            self = .oneByte(try Self.elements(in: data, twoByte: false))
        } else if profile & 0xFFF0 == Self.twoByteProfile {
            self = .twoByte(appBits: UInt8(profile & 0x000F), try Self.elements(in: data, twoByte: true))
        } else {
            self = .other(profile: profile, data: data)
        }
    }

    private static func elements(in data: [UInt8], twoByte: Bool) throws(RTPDecodingError) -> [RTPHeaderExtensionElement] {
        var elements: [RTPHeaderExtensionElement] = []
        var reader = BigEndianReader(data)
        while let first = reader.readUInt8() {
            // A zero byte is padding between or after elements.
            if first == 0 { continue }
            let id: UInt8
            let length: Int
            if twoByte {
                guard let second = reader.readUInt8() else { throw .invalidHeaderExtension }
                id = first
                length = Int(second)
            } else {
                id = first >> 4
                // ID 15 is reserved: the rest of the block is not to be read (RFC 8285 §4.2).
                if id == 15 { break }
                length = Int(first & 0x0F) + 1
            }
            guard let value = reader.readBytes(length) else { throw .invalidHeaderExtension }
            elements.append(RTPHeaderExtensionElement(id: id, data: value))
        }
        return elements
    }

    var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case .twoByte(let appBits, _): Self.twoByteProfile | UInt16(appBits & 0x0F)
        case .other(let profile, _): profile
        }
    }

    /// The block's data, padded with zeros to a whole number of 32-bit words.
    var encodedData: [UInt8] {
        var data: [UInt8] = []
        switch self {
        case .oneByte(let elements):
            for element in elements {
                data.append(element.id << 4 | UInt8(truncatingIfNeeded: element.data.count - 1) & 0x0F)
                data += element.data
            }
        case .twoByte(_, let elements):
            for element in elements {
                data.append(element.id)
                data.append(UInt8(truncatingIfNeeded: element.data.count))
                data += element.data
            }
        case .other(_, let bytes):
            data = bytes
        }
        data += Array(repeating: 0, count: (4 - data.count % 4) % 4)
        return data
    }
}

public struct RTPHeaderExtensionElement: Hashable, Sendable {
    public var id: UInt8
    public var data: [UInt8]

    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}

/// The header extension URIs the SFU negotiates (RFC 6464, RFC 8843 §15).
public enum RTPExtensionURI {
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852: which simulcast layer (RID) a packet belongs to, and which layer an RTX packet repairs.
    public static let streamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    public static let repairedStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// Transport-wide sequence numbers, for transport-cc feedback.
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
}

/// RFC 6464's client-to-mixer audio level: a voice-activity flag and 0–127 −dBov.
public struct AudioLevel: Hashable, Sendable {
    public var voiceActivity: Bool
    /// 0 is the loudest, 127 silence.
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    /// Nil unless the element carries at least one byte (one-byte form has exactly one).
    public init?(extensionData data: some Collection<UInt8>) {
        guard let byte = data.first else { return nil }
        self.init(voiceActivity: byte & 0x80 != 0, level: byte & 0x7F)
    }

    public var extensionData: [UInt8] { [(voiceActivity ? 0x80 : 0) | level] }
}
