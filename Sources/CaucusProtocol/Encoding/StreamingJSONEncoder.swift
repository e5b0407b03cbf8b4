/// A JSON encoder that writes straight into a byte array as `encode(to:)` runs, with no
/// intermediate tree. For the Codable types Caucus sends and stores, its output is the same
/// as Foundation's `JSONEncoder()` with default settings: the same escaping (`/` as `\/`,
/// control characters as `\b \t \n \f \r` or lowercase `\u00xx`, everything else raw UTF-8),
/// the same numbers (integers in decimal, floating point as Swift's `description` with a
/// trailing `.0` dropped), `null` for nil, `{}` for a nested value that encodes nothing.
///
/// One difference is deliberate: members of an object come in the order they were encoded.
/// Foundation's `JSONEncoder` (swift-foundation, without `.sortedKeys`) keeps an object's
/// members in a `Dictionary` and writes them in hash order, which changes from one process to
/// the next, so no encoder can match its member order; this one is the same for every run.
///
/// What a streaming encoder cannot do, it refuses with an `EncodingError.invalidValue` rather
/// than write JSON that differs (see `docs` in `EncoderSink.swift`):
/// - writing a key twice into one object (JSONEncoder keeps the last value);
/// - writing into a container after it was finished: a nested container is finished when its
///   parent container (or an ancestor) is written to again, or when the value whose
///   `encode(to:)` made it returns; a `superEncoder()` likewise;
/// - asking one encoder for two kinds of container, or a single-value container for two values
///   (JSONEncoder traps on both);
/// - `Data` is written as base64 and `URL` as its `absoluteString`, as JSONEncoder does;
///   `Decimal` is refused.
public struct StreamingJSONEncoder: Sendable {
    public init() {}

    /// Appends the JSON for `value` to `bytes` (so a caller can reserve room for a frame header
    /// first). If it throws, `bytes` is as it was.
    public func encode<T: Encodable>(_ value: T, appendingTo bytes: inout [UInt8]) throws {
        let sink = EncoderSink()
        swap(&sink.bytes, &bytes)
        let start = sink.bytes.count
        defer { swap(&sink.bytes, &bytes) }
        do {
            try sink.encodeTopLevel(value)
        } catch {
            sink.bytes.removeSubrange(start...)
            throw error
        }
    }

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        try encode(value, appendingTo: &bytes)
        return bytes
    }
}
