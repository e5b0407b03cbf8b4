/// An unkeyed container: elements of the array in its slot.
struct UnkeyedContainer: UnkeyedEncodingContainer {
    let sink: EncoderSink
    let slot: Slot

    var codingPath: [any CodingKey] { sink.codingPath(slot) }

    /// Elements so far (shared with any other unkeyed container of the same encoder).
    var count: Int {
        let depth = Int(slot.depth)
        guard depth < sink.frames.count, sink.frames[depth].serial == slot.serial else { return 0 }
        return sink.frames[depth].count
    }

    private var nextIndexKey: IndexKey { IndexKey(intValue: count) }

    mutating func encodeNil() throws {
        try sink.beginElement(slot)
        sink.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try sink.beginElement(slot)
        sink.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try sink.beginElement(slot)
        sink.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try sink.beginElement(slot)
        try sink.writeFloat(value, key: IndexKey?.none)
    }

    mutating func encode(_ value: Float) throws {
        try sink.beginElement(slot)
        try sink.writeFloat(value, key: IndexKey?.none)
    }

    mutating func encode(_ value: Int) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int8) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int16) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int32) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int64) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt8) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt16) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt32) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt64) throws {
        try sink.beginElement(slot)
        sink.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try sink.beginElement(slot)
        if try sink.writeDirect(value, key: IndexKey?.none) { return }
        try sink.encodeComposite(value, path: .index(count - 1))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedContainer<NestedKey>(sink: sink, slot: detached(.object)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(sink: sink, slot: detached(.array))
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(sink: sink, slot: detached(.pending))
    }

    /// Writes the comma and opens a slot for the element that later writes may leave.
    /// Where that fails, the failure is recorded and the slot returned is already finished.
    private func detached(_ state: EncoderSink.State) -> Slot {
        do {
            try sink.beginElement(slot)
        } catch {
            return Slot(depth: Int32.max, serial: 0)
        }
        return sink.pushDetached(state, path: .index(count - 1))
    }
}
