import CaucusJSON
import Foundation
import Testing

/// Where a streaming encoder cannot write what JSONEncoder writes, it throws instead.
@Suite struct UnsupportedOrderTests {
    /// Foundation encodes `value` (so the case is a real divergence, not an error in both);
    /// the streaming encoder must throw `EncodingError.invalidValue`, and leave appended-to
    /// bytes as they were.
    func expectRefused(
        _ value: Custom, foundationGives expected: String, saying reason: String = "StreamingJSONEncoder",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let foundation = try JSONShape([UInt8](JSONEncoder().encode(value)))
        #expect(foundation == (try JSONShape(Array(expected.utf8))), "foundation: \(foundation)", sourceLocation: sourceLocation)
        var bytes: [UInt8] = [1, 2, 3]
        do {
            try StreamingJSONEncoder().encode(value, appendingTo: &bytes)
            Issue.record("encoded \(Compare.text(Array(bytes.dropFirst(3)))) instead of throwing", sourceLocation: sourceLocation)
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error else {
                Issue.record("wrong error \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(context.debugDescription.contains(reason), "\(context.debugDescription)", sourceLocation: sourceLocation)
        }
        #expect(bytes == [1, 2, 3], sourceLocation: sourceLocation)
    }

    @Test func duplicateKey() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                try c.encode(1, forKey: .a)
                try c.encode(2, forKey: .b)
                try c.encode(3, forKey: .a)
            }, foundationGives: #"{"a":3,"b":2}"#)
        // Also across two containers of one encoder, and with many members.
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                for index in 0..<40 {
                    var more = encoder.container(keyedBy: NamedKey.self)
                    try more.encode(index, forKey: NamedKey("k\(index)"))
                }
                try c.encode(1, forKey: .a)
                var again = encoder.container(keyedBy: NamedKey.self)
                try again.encode(2, forKey: NamedKey("k7"))
            }, foundationGives: "{" + (0..<40).map { #""k\#($0)":\#($0 == 7 ? 2 : $0)"# }.joined(separator: ",") + #","a":1}"#)
    }

    @Test func sameNestedKeyTwice() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                var first = c.nestedContainer(keyedBy: K.self, forKey: .a)
                try first.encode(1, forKey: .a)
                var second = c.nestedContainer(keyedBy: K.self, forKey: .a)
                try second.encode(2, forKey: .b)
            }, foundationGives: #"{"a":{"a":1,"b":2}}"#)
    }

    @Test func nestedWrittenAfterParent() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                var nested = c.nestedContainer(keyedBy: K.self, forKey: .a)
                try c.encode(2, forKey: .b)
                try nested.encode(1, forKey: .a)
            }, foundationGives: #"{"a":{"a":1},"b":2}"#)
        try expectRefused(
            Custom { encoder in
                var c = encoder.unkeyedContainer()
                var nested = c.nestedUnkeyedContainer()
                try c.encode(1)
                try nested.encode(2)
            }, foundationGives: "[[2],1]")
    }

    @Test func firstSiblingWrittenAfterSecondOpened() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                var a = c.nestedContainer(keyedBy: K.self, forKey: .a)
                var b = c.nestedUnkeyedContainer(forKey: .b)
                try b.encode(1)
                try a.encode(2, forKey: .c)
            }, foundationGives: #"{"a":{"c":2},"b":[1]}"#)
    }

    @Test func superEncoderUsedLate() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.unkeyedContainer()
                try c.encode(1)
                let sup = c.superEncoder()
                try c.encode(2)
                var single = sup.singleValueContainer()
                try single.encode(9)
            }, foundationGives: "[1,9,2]")
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                let sup = c.superEncoder()
                try c.encode(2, forKey: .b)
                var single = sup.singleValueContainer()
                try single.encode(9)
            }, foundationGives: #"{"b":2,"super":9}"#)
    }

    @Test func containerKeptPastItsValue() throws {
        let smuggler = Smuggler()
        let leaky = Custom { encoder in
            var c = encoder.container(keyedBy: K.self)
            try c.encode(1, forKey: .a)
            smuggler.keyed = c
        }
        try expectRefused(
            Custom { encoder in
                var c = encoder.unkeyedContainer()
                try c.encode(leaky)
                var kept = smuggler.keyed!
                try kept.encode(2, forKey: .b)
            }, foundationGives: #"[{"a":1}]"#)  // Foundation drops the late member silently.
    }

    @Test func parentWrittenFromInsideAChild() throws {
        let smuggler = Smuggler()
        let child = Custom { encoder in
            var c = encoder.container(keyedBy: K.self)
            try c.encode(1, forKey: .a)
            var parent = smuggler.keyed!
            try parent.encode(3, forKey: .c)
            try c.encode(2, forKey: .b)
        }
        try expectRefused(
            Custom { encoder in
                var parent = encoder.container(keyedBy: K.self)
                smuggler.keyed = parent
                try parent.encode(child, forKey: .a)
            }, foundationGives: #"{"a":{"a":1,"b":2},"c":3}"#)
    }

    /// A failure the value swallows still fails the whole encode.
    @Test func swallowedFailureStillThrows() throws {
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                try c.encode(1, forKey: .a)
                try? c.encode(2, forKey: .a)
                try c.encode(3, forKey: .b)
            }, foundationGives: #"{"a":2,"b":3}"#)
        // Foundation lets a value swallow its own non-finite float; the streaming encoder cannot
        // take back the member it had begun.
        try expectRefused(
            Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                try? c.encode(Double.nan, forKey: .a)
                try c.encode(3, forKey: .b)
            }, foundationGives: #"{"b":3}"#, saying: "Unable to encode Double.nan directly in JSON.")
    }

    /// JSONEncoder traps on these; the streaming encoder throws.
    @Test func secondKindOfContainerOrSecondValue() throws {
        let mixed = Custom { encoder in
            var c = encoder.container(keyedBy: K.self)
            try c.encode(1, forKey: .a)
            var u = encoder.unkeyedContainer()
            try u.encode(2)
        }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([mixed]) }
        let twoValues = Custom { encoder in
            var c = encoder.singleValueContainer()
            try c.encode(1)
            try c.encode(2)
        }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(["x": twoValues]) }
        let keyedAfterValue = Custom { encoder in
            var c = encoder.singleValueContainer()
            try c.encode(1)
            _ = encoder.container(keyedBy: K.self)
        }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(keyedAfterValue) }
    }

    @Test func nonFiniteFloatsThrowAsInFoundation() throws {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try JSONEncoder().encode(["a": value]) }
            #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(["a": value]) }
            #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(value) }
        }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([Float.nan]) }
        var bytes: [UInt8] = [9]
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([[1.0, .nan]], appendingTo: &bytes) }
        #expect(bytes == [9])
    }
}
