import CaucusMedia

/// The distinct stream formats a session's offers use, numbered as they come, and the
/// translation between any two, made once: a recomputation of a thousand subscribers compares
/// small numbers instead of codecs, and builds no translation twice. Offers of one client stack
/// share their formats, so a session holds a handful however many users it has.
struct FormatCatalog {
    private var ids: [StreamFormat: Int] = [:]
    private(set) var formats: [StreamFormat] = []
    /// What the recording tap reads of each format, by the same number: plain values, so a
    /// recorded packet retains none of the format's strings (`ForwardingEngine+Recording.swift`).
    private(set) var recordable: [RecordableFormat] = []
    /// By `source << 32 | destination`; nil: the destination cannot carry the source's codec.
    private var translations: [Int: HeaderTranslation?] = [:]

    /// The number of `format`, given on first sight.
    mutating func id(of format: StreamFormat) -> Int {
        if let id = ids[format] { return id }
        let id = formats.count
        ids[format] = id
        formats.append(format)
        recordable.append(RecordableFormat(format))
        return id
    }

    /// How packets in format `source` are renumbered for format `destination`; nil when they
    /// cannot be.
    mutating func translation(from source: Int, to destination: Int) -> HeaderTranslation? {
        let key = source << 32 | destination
        if let known = translations[key] { return known }
        let made = HeaderTranslation(from: formats[source], to: formats[destination])
        translations[key] = .some(made)
        return made
    }
}

/// A format as the recording tap needs it.
struct RecordableFormat {
    /// The codec's name, lower-cased (`opus`, `vp8`, `h264`: short strings, held inline).
    let codec: String
    let clockRate: Int
    let payloadType: UInt8
    let redundancyPayloadType: UInt8?

    init(_ format: StreamFormat) {
        codec = format.codec.name.lowercased()
        clockRate = format.codec.clockRate
        payloadType = format.codec.payloadType & 0x7F
        redundancyPayloadType = format.redundancyPayloadType.map { $0 & 0x7F }
    }
}
