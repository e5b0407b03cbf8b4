import CaucusJSON
import Foundation
import Testing

/// Each container feature, against Foundation's JSONEncoder.
@Suite struct ContainerEncodingTests {
    @Test func valueThatEncodesNothing() throws {
        #expect(Compare.text(try Compare.expectSame([Nothing(), Nothing()])) == "[{},{}]")
        #expect(Compare.text(try Compare.expectSame(["k": Nothing()])) == #"{"k":{}}"#)
        let viaSingle = Custom { encoder in
            var c = encoder.singleValueContainer()
            try c.encode(Nothing())
        }
        #expect(Compare.text(try Compare.expectSame(viaSingle)) == "{}")
        let untouchedSingle = Custom { encoder in _ = encoder.singleValueContainer() }
        #expect(Compare.text(try Compare.expectSame([untouchedSingle])) == "[{}]")
        // At the top level both refuse.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Nothing()) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(Nothing()) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(untouchedSingle) }
        // An asked-for but empty container is `{}` or `[]`, even at the top.
        #expect(Compare.text(try Compare.expectSame(Custom { _ = $0.container(keyedBy: K.self) })) == "{}")
        #expect(Compare.text(try Compare.expectSame(Custom { _ = $0.unkeyedContainer() })) == "[]")
    }

    @Test func keyedContainerAskedForTwiceMerges() throws {
        let twice = Custom { encoder in
            var first = encoder.container(keyedBy: K.self)
            try first.encode(1, forKey: .a)
            var second = encoder.container(keyedBy: NamedKey.self)
            try second.encode("two", forKey: NamedKey("b"))
            try first.encode(3, forKey: .c)
        }
        #expect(Compare.text(try Compare.expectSame(twice)) == #"{"a":1,"b":"two","c":3}"#)
        let unkeyedTwice = Custom { encoder in
            var first = encoder.unkeyedContainer()
            try first.encode(1)
            var second = encoder.unkeyedContainer()
            try second.encode(2)
            try first.encode(3)
            #expect(first.count == 3 && second.count == 3)
        }
        #expect(Compare.text(try Compare.expectSame(unkeyedTwice)) == "[1,2,3]")
    }

    @Test func payloadEncodedIntoTheSameEncoderMerges() throws {
        let value = [Tagged(payload: Payload(x: 4, note: "n")), Tagged(payload: Payload(x: 5, note: nil))]
        #expect(Compare.text(try Compare.expectSame(value)) == #"[{"type":"payload","x":4,"note":"n","d":true},{"type":"payload","x":5,"d":true}]"#)
    }

    @Test func nilsAndOptionals() throws {
        let keyed = Custom { encoder in
            var c = encoder.container(keyedBy: K.self)
            try c.encodeIfPresent(nil as Int?, forKey: .a)
            try c.encodeNil(forKey: .b)
            try c.encodeIfPresent("x" as String?, forKey: .c)
            try c.encode(nil as Int?, forKey: .d)
        }
        #expect(Compare.text(try Compare.expectSame(keyed)) == #"{"b":null,"c":"x","d":null}"#)
        #expect(Compare.text(try Compare.expectSame([1, nil, 3] as [Int?])) == "[1,null,3]")
        #expect(Compare.text(try Compare.expectSame([nil, "a", nil] as [String?])) == #"[null,"a",null]"#)
        #expect(Compare.text(try Compare.expectSame([[nil], nil, [2]] as [[Int?]?])) == "[[null],null,[2]]")
        let unkeyed = Custom { encoder in
            var c = encoder.unkeyedContainer()
            try c.encodeNil()
            try c.encode(Optional<Payload>.none)
            try c.encode(Optional(Payload(x: 1, note: nil)))
        }
        #expect(Compare.text(try Compare.expectSame(unkeyed)) == #"[null,null,{"x":1}]"#)
        #expect(Compare.text(try Compare.expectSame(nil as Int?)) == "null")
    }

    @Test func dictionaries() throws {
        try Compare.expectSame(["a": 1, "b/\"": 2, "": 3, "é": 4])
        #expect(Compare.text(try Compare.expectSame([7: "seven"])) == #"{"7":"seven"}"#)
        try Compare.expectSame([-1: ["x": [true]], 0: [:], Int.max: ["y": []]] as [Int: [String: [Bool]]])
        try Compare.expectSame([String: Int]())
        try Compare.expectSame([Int: Int]())
        try Compare.expectSame(Dictionary(uniqueKeysWithValues: (0..<200).map { ("key \($0)", $0) }))
    }

    @Test func nestedContainersFinishedOutOfOrder() throws {
        let value = Custom { encoder in
            var root = encoder.container(keyedBy: K.self)
            var a = root.nestedContainer(keyedBy: K.self, forKey: .a)
            var inner = a.nestedUnkeyedContainer(forKey: .b)
            try inner.encode(1)
            var deeper = inner.nestedContainer(keyedBy: K.self)
            try deeper.encode("x", forKey: .c)
            try inner.encode(2)  // finishes `deeper`
            try a.encode(3, forKey: .c)  // finishes `inner`
            _ = root.nestedUnkeyedContainer(forKey: .b)  // finishes `a`; stays empty
            try root.encode(4, forKey: .c)  // finishes `b`
            var list = root.nestedUnkeyedContainer(forKey: .d)
            _ = list.nestedContainer(keyedBy: K.self)
            try list.encode(5)
            _ = list.nestedUnkeyedContainer()
        }
        #expect(Compare.text(try Compare.expectSame(value)) == #"{"a":{"b":[1,{"c":"x"},2],"c":3},"b":[],"c":4,"d":[{},5,[]]}"#)
    }

    @Test func superEncoders() throws {
        #expect(Compare.text(try Compare.expectSame(Dog(name: "Rex"))) == #"{"name":"Rex","super":{"legs":4}}"#)
        let keyed = Custom { encoder in
            var c = encoder.container(keyedBy: K.self)
            try c.encode(1, forKey: .a)
            var single = c.superEncoder(forKey: .b).singleValueContainer()
            try single.encode("b")
            _ = c.superEncoder(forKey: .c)  // never used: {}
            try c.encode(2, forKey: .d)
        }
        #expect(Compare.text(try Compare.expectSame(keyed)) == #"{"a":1,"b":"b","c":{},"d":2}"#)
        let unkeyed = Custom { encoder in
            var c = encoder.unkeyedContainer()
            try c.encode(1)
            var inner = c.superEncoder().unkeyedContainer()
            try inner.encode(5)
            try inner.encode(6)
            try c.encode(2)
        }
        #expect(Compare.text(try Compare.expectSame(unkeyed)) == "[1,[5,6],2]")
    }

    @Test func codingPathsAsFoundation() throws {
        // Safe: one test's synchronous encode calls write and read `seen`, on one thread; the
        // box is Sendable only because `Custom`'s closure must be.
        final class Paths: @unchecked Sendable { var seen: [[String]] = [] }
        func paths(_ encode: (Custom) throws -> Void) throws -> [[String]] {
            let paths = Paths()
            let leaf = Custom { encoder in
                paths.seen.append(encoder.codingPath.map(\.stringValue))
                var c = encoder.singleValueContainer()
                try c.encode(1)
            }
            let value = Custom { encoder in
                var c = encoder.container(keyedBy: K.self)
                try c.encode(leaf, forKey: .a)
                var n = c.nestedUnkeyedContainer(forKey: .b)
                try n.encode(leaf)
                try n.encode(leaf)
                paths.seen.append(n.codingPath.map(\.stringValue))
            }
            try encode(value)
            return paths.seen
        }
        let foundation = try paths { _ = try JSONEncoder().encode($0) }
        let streaming = try paths { _ = try StreamingJSONEncoder().encode($0) }
        // Foundation leaves the nested container's key out of its elements' paths; this
        // encoder gives the whole path.
        #expect(streaming == [["a"], ["b", "Index 0"], ["b", "Index 1"], ["b"]])
        #expect(foundation == [["a"], ["Index 0"], ["Index 1"], ["b"]])
    }

    @Test func foundationSpecialTypes() throws {
        try Compare.expectSame([Date(timeIntervalSinceReferenceDate: 12.5), Date(timeIntervalSince1970: 0)])
        #expect(Compare.text(try Compare.expectSame(Data([1, 2, 3, 250]))) == #""AQID+g==""#)
        #expect(Compare.text(try Compare.expectSame(["u": URL(string: "https://example.com/a?b=c")!])) == #"{"u":"https:\/\/example.com\/a?b=c"}"#)
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([Decimal(string: "1.25")!]) }
    }
}
