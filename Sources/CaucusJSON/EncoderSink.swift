import Foundation

/// The state of one `StreamingJSONEncoder.encode` call: the bytes written so far and a stack
/// of the JSON values still open, innermost last.
///
/// Every encoder and container handed to `encode(to:)` names one entry of the stack (a `Slot`:
/// its depth and a serial number). Writing through it first finishes every value opened
/// above it (a nested container or `superEncoder()` left behind is complete once its parent is
/// written to again), then writes at the end of the bytes. A slot that is no longer on the
/// stack is finished for good: writing through it throws.
///
/// What this supports, beyond the ordinary depth-first order:
/// - asking one encoder for a keyed container twice, or for an unkeyed container twice, or
///   passing it on to another value's `encode(to:)`: the members go into the same object or
///   array, as in JSONEncoder;
/// - nested containers and `superEncoder()`s written to in any order until their parent, or an
///   ancestor, is written to again; one never written to is `{}` (or `[]` for a nested
///   unkeyed container, `{}` for a super encoder);
/// - a value that encodes nothing: `{}` when nested; at the top level it throws, as in
///   JSONEncoder.
/// What throws (`EncodingError.invalidValue`), because JSONEncoder would write something else
/// or trap: a key written twice into one object (also a second `nestedContainer` for the same
/// key); writing through a finished slot; a second kind of container from one encoder, or a
/// second value through one single-value container; writing into a parent while a value
/// inside it is still running its `encode(to:)`; `Decimal`. Once one write has thrown, every
/// later one does, and so does the whole `encode`, even if the thrower caught the error.
final class EncoderSink {
    // Only this class touches these, one call at a time: the runtime's exclusivity checks on
    // every append cost more than the appends.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    @exclusivity(unchecked) var frames: [Frame] = []
    /// Where each member name of the open objects lies in `bytes`, to refuse duplicates.
    @exclusivity(unchecked) var keys: [KeySpan] = []
    /// For objects with many members, their names, keyed by depth.
    var largeKeySets: [Int: Set<[UInt8]>] = [:]
    var nextSerial: UInt32 = 0
    var failure: (any Error)?
    /// The encoder's user's own scalar types, asked after the standard ones.
    let scalars: (any JSONScalarWriter.Type)?

    init(scalars: (any JSONScalarWriter.Type)?) {
        self.scalars = scalars
        frames.reserveCapacity(8)
        keys.reserveCapacity(16)
    }

    enum State: UInt8 { case pending, object, array, scalar }

    enum PathEntry {
        case none
        case key(any CodingKey)
        case index(Int)
    }

    struct Frame {
        var state: State
        /// A value's `encode(to:)` for this slot is running: nothing may finish it but its return.
        var inCall: Bool
        var serial: UInt32
        var count: Int = 0
        var keyBase: Int = 0
        var path: PathEntry
    }

    struct KeySpan {
        var start: Int
        var end: Int
    }

    static let largeObject = 32

    // MARK: Entry points

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        if try writeDirect(value, key: IndexKey?.none) { return }
        try encodeComposite(value, path: .none)
        if let failure { throw failure }
    }

    /// Writes a value in the slot whose key or comma has just been written.
    @inline(__always)
    func encodeValue<T: Encodable>(_ value: T, path: @autoclosure () -> PathEntry) throws {
        if try writeDirect(value, key: IndexKey?.none) { return }
        try encodeComposite(value, path: path())
    }

    func encodeComposite<T: Encodable>(_ value: T, path: PathEntry) throws {
        let depth = frames.count
        nextSerial &+= 1
        let serial = nextSerial
        frames.append(Frame(state: .pending, inCall: true, serial: serial, path: path))
        do {
            try value.encode(to: SlotEncoder(sink: self, slot: Slot(depth: Int32(depth), serial: serial)))
        } catch {
            if failure == nil { failure = error }
            throw error
        }
        if let failure { throw failure }
        frames[depth].inCall = false
        if frames.count > depth + 1 { try closeAbove(depth) }
        let frame = frames.removeLast()
        if frame.state == .pending && depth == 0 {
            throw record(
                EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values.")))
        }
        writeClose(frame, depth: depth)
    }

    // MARK: Slots

    /// Checks that `slot` is still open and finishes everything opened above it.
    @inline(__always)
    func enter(_ slot: Slot) throws {
        if let failure { throw failure }
        let depth = Int(slot.depth)
        guard depth < frames.count, frames[depth].serial == slot.serial else { throw finished(slot) }
        if frames.count > depth + 1 { try closeAbove(depth) }
    }

    func closeAbove(_ depth: Int) throws {
        while frames.count > depth + 1 {
            let top = frames.count - 1
            if frames[top].inCall {
                throw fail(
                    "A container was written to while a value inside it was still being encoded; "
                        + "the streaming encoder cannot go back into it.", depth: top)
            }
            writeClose(frames.removeLast(), depth: top)
        }
    }

    func writeClose(_ frame: Frame, depth: Int) {
        switch frame.state {
        case .pending:
            bytes.append(UInt8(ascii: "{"))
            bytes.append(UInt8(ascii: "}"))
        case .object:
            bytes.append(UInt8(ascii: "}"))
            keys.removeSubrange(frame.keyBase...)
            if !largeKeySets.isEmpty { largeKeySets[depth] = nil }
        case .array:
            bytes.append(UInt8(ascii: "]"))
        case .scalar:
            break
        }
    }

    /// Pushes a slot that is not being encoded by a call: a nested container or super encoder.
    func pushDetached(_ state: State, path: PathEntry) -> Slot {
        nextSerial &+= 1
        let depth = frames.count
        frames.append(Frame(state: state, inCall: false, serial: nextSerial, keyBase: keys.count, path: path))
        switch state {
        case .object: bytes.append(UInt8(ascii: "{"))
        case .array: bytes.append(UInt8(ascii: "["))
        case .pending, .scalar: break
        }
        return Slot(depth: Int32(depth), serial: nextSerial)
    }

    /// Turns the slot into an object or array when an encoder asks for a container.
    /// Returns false (and records why) if it cannot.
    @discardableResult
    func open(_ slot: Slot, as state: State) -> Bool {
        if failure != nil { return false }
        let depth = Int(slot.depth)
        guard depth < frames.count, frames[depth].serial == slot.serial else {
            _ = finished(slot)
            return false
        }
        switch frames[depth].state {
        case .pending:
            // A pending slot has nothing above it: its bytes come next.
            frames[depth].state = state
            frames[depth].keyBase = keys.count
            bytes.append(state == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
            return true
        case let current where current == state:
            return true
        default:
            _ = fail(
                "An encoder was asked for a \(state == .object ? "keyed" : "unkeyed") container after it had encoded "
                    + "\(frames[depth].state == .scalar ? "a single value" : "another kind of container").", depth: depth)
            return false
        }
    }

    // MARK: Members and elements

    @inline(__always)
    func beginMember<Key: CodingKey>(_ slot: Slot, key: Key) throws {
        try enter(slot)
        let depth = Int(slot.depth)
        if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        try writeKey(key.stringValue, depth: depth)
        bytes.append(UInt8(ascii: ":"))
    }

    @inline(__always)
    func beginElement(_ slot: Slot) throws {
        try enter(slot)
        let depth = Int(slot.depth)
        if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
    }

    /// Claims a single-value slot: it may hold one value only.
    @inline(__always)
    func beginSingle(_ slot: Slot) throws {
        try enter(slot)
        let depth = Int(slot.depth)
        guard frames[depth].state == .pending else {
            throw fail(
                frames[depth].state == .scalar
                    ? "A single-value container was asked to encode a second value."
                    : "A single-value container was used after its encoder had made another kind of container.",
                depth: depth)
        }
        frames[depth].state = .scalar
    }

    func writeKey(_ key: String, depth: Int) throws {
        let start = bytes.count + 1
        writeString(key)
        let span = KeySpan(start: start, end: bytes.count - 1)
        let base = frames[depth].keyBase
        let existing = keys.count - base
        if existing >= Self.largeObject {
            let name = Array(bytes[span.start..<span.end])
            var set = largeKeySets[depth] ?? Set(keys[base...].map { Array(bytes[$0.start..<$0.end]) })
            let inserted = set.insert(name).inserted
            largeKeySets[depth] = set
            if !inserted { throw duplicate(key, depth: depth) }
        } else if existing > 0 {
            let duplicated = bytes.withUnsafeBufferPointer { all in
                let length = span.end - span.start
                for index in base..<keys.count {
                    let other = keys[index]
                    if other.end - other.start == length
                        && memcmp(all.baseAddress! + other.start, all.baseAddress! + span.start, length) == 0
                    {
                        return true
                    }
                }
                return false
            }
            if duplicated { throw duplicate(key, depth: depth) }
        }
        keys.append(span)
    }

    // MARK: Paths and errors

    func codingPath(_ slot: Slot) -> [any CodingKey] {
        var path: [any CodingKey] = []
        let last = min(Int(slot.depth), frames.count - 1)
        guard last >= 0 else { return path }
        for depth in 0...last {
            switch frames[depth].path {
            case .none: break
            case .key(let key): path.append(key)
            case .index(let index): path.append(IndexKey(intValue: index))
            }
        }
        return path
    }

    func record(_ error: any Error) -> any Error {
        if failure == nil { failure = error }
        return failure!
    }

    func fail(_ message: String, depth: Int) -> any Error {
        let path = codingPath(Slot(depth: Int32(depth), serial: 0))
        return record(
            EncodingError.invalidValue(
                message, EncodingError.Context(codingPath: path, debugDescription: "StreamingJSONEncoder: " + message)))
    }

    func finished(_ slot: Slot) -> any Error {
        fail(
            "An encoder or container was used after it was finished: a nested container or super encoder is "
                + "finished once its parent is written to again, and a value's encoder when its encode(to:) returns.",
            depth: min(Int(slot.depth), frames.count - 1))
    }

    func duplicate(_ key: String, depth: Int) -> any Error {
        fail("The key \"\(key)\" was encoded twice into one object; JSONEncoder would keep only the last value.", depth: depth)
    }
}

/// Which entry of the stack an encoder or container writes to.
struct Slot {
    var depth: Int32
    var serial: UInt32
}

struct IndexKey: CodingKey {
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    let index: Int
    init(intValue: Int) { index = intValue }
    init?(stringValue: String) { nil }
}

struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
