/// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 §4.2):
///
///     |X|R|N|S|R| PID |      mandatory octet
///     |I|L|T|K| RSV   |      present when X
///     |M| PictureID   |      (+ 8 more bits when M) present when I
///     |   TL0PICIDX   |      present when L
///     |TID|Y| KEYIDX  |      present when T or K
///
/// Optional fields are optionals, so a descriptor that announces a field it lacks cannot be
/// written down; X is set on encoding exactly when one of them is present.
public struct VP8PayloadDescriptor: Hashable, Sendable {
    /// RFC 7741's PictureID, in its 7-bit or 15-bit form (the M bit).
    public enum PictureID: Hashable, Sendable {
        case short(UInt8)
        case long(UInt16)

        /// The following picture's ID, wrapping within its own width.
        public var next: PictureID {
            switch self {
            case .short(let value): return .short((value &+ 1) & 0x7F)
            case .long(let value): return .long((value &+ 1) & 0x7FFF)
            }
        }
    }

    /// N: no other frame refers to this one; it may be dropped.
    public var isNonReference: Bool
    /// S: the payload starts a VP8 partition.
    public var startsPartition: Bool
    /// PID: the partition index of the payload's first byte (0–7).
    public var partitionIndex: UInt8
    public var pictureID: PictureID?
    /// TL0PICIDX: the running index of the temporal base layer.
    public var temporalLevelZeroIndex: UInt8?
    /// TID (0–3) and Y (the frame only depends on the base layer): present together (T).
    public var temporalLayer: (index: UInt8, layerSync: Bool)? {
        get { temporalLayerIndex.map { ($0, layerSync) } }
        set {
            temporalLayerIndex = newValue.map { $0.index & 0x03 }
            layerSync = newValue?.layerSync ?? false
        }
    }
    /// KEYIDX (0–31): the running index of key frames (K).
    public var keyIndex: UInt8?

    // Stored apart so the synthesized equality sees them; Y is false whenever TID is absent.
    private var temporalLayerIndex: UInt8?
    private var layerSync: Bool = false

    public init(
        isNonReference: Bool = false, startsPartition: Bool, partitionIndex: UInt8 = 0, pictureID: PictureID? = nil,
        temporalLevelZeroIndex: UInt8? = nil, temporalLayer: (index: UInt8, layerSync: Bool)? = nil, keyIndex: UInt8? = nil
    ) {
        self.isNonReference = isNonReference
        self.startsPartition = startsPartition
        self.partitionIndex = partitionIndex & 0x07
        self.pictureID = pictureID.map {
            switch $0 {
            case .short(let value): return .short(value & 0x7F)
            case .long(let value): return .long(value & 0x7FFF)
            }
        }
        self.temporalLevelZeroIndex = temporalLevelZeroIndex
        self.keyIndex = keyIndex.map { $0 & 0x1F }
        self.temporalLayer = temporalLayer
    }

    /// Whether the payload begins a frame: the start of partition 0.
    public var startsFrame: Bool { startsPartition && partitionIndex == 0 }

    /// The descriptor's bytes.
    public func encoded() -> [UInt8] {
        let hasExtensions = pictureID != nil || temporalLevelZeroIndex != nil || temporalLayerIndex != nil || keyIndex != nil
        var bytes: [UInt8] = [
            (hasExtensions ? 0x80 : 0) | (isNonReference ? 0x20 : 0) | (startsPartition ? 0x10 : 0) | partitionIndex & 0x07
        ]
        guard hasExtensions else { return bytes }
        bytes.append(
            (pictureID != nil ? 0x80 : 0) | (temporalLevelZeroIndex != nil ? 0x40 : 0)
                | (temporalLayerIndex != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0))
        switch pictureID {
        case .short(let value): bytes.append(value & 0x7F)
        case .long(let value): bytes += [0x80 | UInt8(value >> 8 & 0x7F), UInt8(value & 0xFF)]
        case nil: break
        }
        if let temporalLevelZeroIndex { bytes.append(temporalLevelZeroIndex) }
        if temporalLayerIndex != nil || keyIndex != nil {
            bytes.append((temporalLayerIndex ?? 0) << 6 | (temporalLayerIndex != nil && layerSync ? 0x20 : 0) | (keyIndex ?? 0) & 0x1F)
        }
        return bytes
    }

    /// Reads the descriptor at the start of `payload`; nil when the payload is shorter than
    /// the fields it announces. `length` is the descriptor's size in bytes.
    public static func parse(_ payload: ArraySlice<UInt8>) -> (descriptor: VP8PayloadDescriptor, length: Int)? {
        var index = payload.startIndex
        func next() -> UInt8? {
            guard index < payload.endIndex else { return nil }
            defer { index += 1 }
            return payload[index]
        }
        guard let first = next() else { return nil }
        var descriptor = VP8PayloadDescriptor(
            isNonReference: first & 0x20 != 0, startsPartition: first & 0x10 != 0, partitionIndex: first & 0x07)
        if first & 0x80 != 0 {
            guard let extensions = next() else { return nil }
            if extensions & 0x80 != 0 {
                guard let high = next() else { return nil }
                if high & 0x80 != 0 {
                    guard let low = next() else { return nil }
                    descriptor.pictureID = .long(UInt16(high & 0x7F) << 8 | UInt16(low))
                } else {
                    descriptor.pictureID = .short(high)
                }
            }
            if extensions & 0x40 != 0 {
                guard let levelZeroIndex = next() else { return nil }
                descriptor.temporalLevelZeroIndex = levelZeroIndex
            }
            if extensions & 0x30 != 0 {
                guard let octet = next() else { return nil }
                if extensions & 0x20 != 0 { descriptor.temporalLayer = (octet >> 6, octet & 0x20 != 0) }
                if extensions & 0x10 != 0 { descriptor.keyIndex = octet & 0x1F }
            }
        }
        return (descriptor, index - payload.startIndex)
    }
}
