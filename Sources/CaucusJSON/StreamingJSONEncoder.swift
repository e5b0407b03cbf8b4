/// A JSON encoder that writes straight into a byte array as `encode(to:)` runs, with no
/// intermediate tree. Apart from the order of an object's members (below), its output is byte
/// for byte that of Foundation's `JSONEncoder()` with default settings: the same escaping (`"` `\\` and `/` escaped, `\b \t \n \f \r` by name, the
/// other controls U+0000–U+001F as lowercase `\u00xx`, everything else, U+007F included, raw
/// UTF-8), the same numbers (integers in decimal; `Double` and `Float` as Swift's shortest
/// `description` with a trailing `.0` dropped; non-finite ones throw
/// `EncodingError.invalidValue`), `null` for nil, `{}` for a nested value that encodes nothing
/// (a top-level one throws), `Int`-keyed dictionaries as objects with string keys, `Date` as
/// its `timeIntervalSinceReferenceDate`, `Data` as base64 and `URL` as its `absoluteString`.
///
/// Member order is the one deliberate difference: members come in the order they were
/// encoded. swift-foundation's `JSONEncoder` (without `.sortedKeys`) keeps an object's members
/// in a `Dictionary` and writes them in hash order, which changes from one process to the
/// next, so no encoder can reproduce its order; this one is the same on every run.
///
/// Supported, beyond plain depth-first encoding: asking one encoder for its keyed (or unkeyed)
/// container more than once, or handing it to another value's `encode(to:)` (the members merge
/// into one object or array, as in JSONEncoder); nested containers and super encoders written
/// in any order until their parent (or an ancestor) is written to again, which finishes them.
///
/// Refused with `EncodingError.invalidValue`, where JSONEncoder would write something else or
/// trap (never as wrong JSON):
/// - a key written twice into one object, also by a second `nestedContainer(forKey:)` for the
///   same key (JSONEncoder keeps the last value, or merges the nested objects);
/// - writing through a container or encoder that was finished: a nested container or super
///   encoder after its parent was written to again, a value's container after its
///   `encode(to:)` returned (JSONEncoder places the former and silently drops the latter);
/// - writing into a container while a value inside it is still running its `encode(to:)`;
/// - a second kind of container from one encoder, a second value through one single-value
///   container (JSONEncoder traps);
/// - `Decimal`;
/// - any failure a value catches and carries on from: once a write has thrown, the whole
///   `encode` throws, since bytes already written cannot be taken back.
/// If it throws, `encode(_:appendingTo:)` leaves the array as it was.
///
/// `codingPath` is as JSONEncoder's, except that the elements of a nested unkeyed container
/// include that container's key (JSONEncoder leaves it out).
///
/// A `JSONScalarWriter` may write its own types directly (Caucus's ids, instants and user
/// views); without one, every value goes through its `encode(to:)`.
public struct StreamingJSONEncoder: Sendable {
    private let scalars: (any JSONScalarWriter.Type)?

    public init() {
        self.scalars = nil
    }

    public init(scalars: any JSONScalarWriter.Type) {
        self.scalars = scalars
    }

    /// Appends the JSON for `value` to `bytes` (so a caller can reserve room for a frame header
    /// first). If it throws, `bytes` is as it was.
    public func encode<T: Encodable>(_ value: T, appendingTo bytes: inout [UInt8]) throws {
        let sink = EncoderSink(scalars: scalars)
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
