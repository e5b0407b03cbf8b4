/// A user of the encoder may write its own commonest one-value types directly, skipping the
/// round trip through `encode(to:)` and a single-value container: the encoder asks the writer
/// before it encodes a value it does not write itself. A writer must write exactly what the
/// type's `encode(to:)` writes (a test should compare the two, as Caucus's do).
public protocol JSONScalarWriter: SendableMetatype {
    /// Writes `value` into `output` and returns true, or returns false (writing nothing) for a
    /// type it does not handle. Called for every value, so keep the type tests cheap
    /// (`T.self == X.self`).
    static func write<T>(_ value: T, into output: JSONScalarOutput) -> Bool
}

/// Where a `JSONScalarWriter` writes: one JSON value, written in pieces.
public struct JSONScalarOutput {
    let sink: EncoderSink

    @inline(__always)
    public func writeInteger<I: FixedWidthInteger>(_ value: I) { sink.writeInteger(value) }

    /// A JSON string, escaped as JSONEncoder escapes.
    @inline(__always)
    public func writeString(_ string: String) { sink.writeString(string) }

    @inline(__always)
    public func writeNull() { sink.writeNull() }

    @inline(__always)
    public func writeBool(_ value: Bool) { sink.writeBool(value) }

    /// Bytes as they are: punctuation and member names the writer knows need no escaping,
    /// e.g. `,"name":`.
    @inline(__always)
    public func writeVerbatim(_ text: StaticString) {
        text.withUTF8Buffer { sink.bytes.append(contentsOf: $0) }
    }
}
