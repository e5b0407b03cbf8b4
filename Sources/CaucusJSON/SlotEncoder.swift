/// The `Encoder` a value's `encode(to:)` receives; it is also its own single-value container.
struct SlotEncoder: Encoder, SingleValueEncodingContainer {
    let sink: EncoderSink
    let slot: Slot

    var codingPath: [any CodingKey] { sink.codingPath(slot) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        sink.open(slot, as: .object)
        return KeyedEncodingContainer(KeyedContainer<Key>(sink: sink, slot: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.open(slot, as: .array)
        return UnkeyedContainer(sink: sink, slot: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    mutating func encodeNil() throws {
        try sink.beginSingle(slot)
        sink.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try sink.beginSingle(slot)
        sink.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try sink.beginSingle(slot)
        sink.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try sink.beginSingle(slot)
        try sink.writeFloat(value, key: IndexKey?.none)
    }

    mutating func encode(_ value: Float) throws {
        try sink.beginSingle(slot)
        try sink.writeFloat(value, key: IndexKey?.none)
    }

    mutating func encode(_ value: Int) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int8) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int16) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int32) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int64) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt8) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt16) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt32) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt64) throws {
        try sink.beginSingle(slot)
        sink.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try sink.beginSingle(slot)
        // A composite value gets a slot of its own inside this one, so it can neither merge with
        // nor reopen this one; if it encodes nothing it is `{}`, as in JSONEncoder.
        try sink.encodeValue(value, path: .none)
    }
}
