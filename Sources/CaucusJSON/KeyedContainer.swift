/// A keyed container: members of the object in its slot.
struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: EncoderSink
    let slot: Slot

    var codingPath: [any CodingKey] { sink.codingPath(slot) }

    mutating func encodeNil(forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        try sink.writeFloat(value, key: key)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        try sink.writeFloat(value, key: key)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        sink.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try sink.beginMember(slot, key: key)
        if try sink.writeDirect(value, key: key) { return }
        try sink.encodeComposite(value, path: .key(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedContainer<NestedKey>(sink: sink, slot: detached(.object, key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedContainer(sink: sink, slot: detached(.array, key: key))
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(sink: sink, slot: detached(.pending, key: SuperKey()))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(sink: sink, slot: detached(.pending, key: key))
    }

    /// Writes the member's name and opens a slot for its value that later writes may leave.
    /// Where that fails, the failure is recorded and the slot returned is already finished.
    private func detached(_ state: EncoderSink.State, key: some CodingKey) -> Slot {
        do {
            try sink.beginMember(slot, key: key)
        } catch {
            return Slot(depth: Int32.max, serial: 0)
        }
        return sink.pushDetached(state, path: .key(key))
    }
}
