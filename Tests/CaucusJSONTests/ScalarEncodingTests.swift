import CaucusJSON
import Foundation
import PropertyBased
import Testing

/// Strings, numbers and random nested values, against Foundation's JSONEncoder.
@Suite struct ScalarEncodingTests {
    @Test func everyEscapedByte() throws {
        // Each scalar alone, as a string and as a member name, byte for byte.
        for value in Array(0...0x80) + [0xFF, 0x2028, 0xFEFF, 0xFFFF, 0x1F600, 0x10FFFF] {
            let text = String(Unicode.Scalar(UInt32(value))!)
            let expected = [UInt8](try JSONEncoder().encode(["k" + text: text]))
            #expect(try StreamingJSONEncoder().encode(["k" + text: text]) == expected, "U+\(String(value, radix: 16))")
        }
        #expect(Compare.text(try Compare.expectSame("a\"b\\c/d\u{0}\u{1f}\u{8}\u{c}\u{7f}")) == #""a\"b\\c\/d\u0000\u001f\b\f"# + "\u{7f}\"")
    }

    @Test func integersOfEveryWidth() throws {
        try Compare.expectSame([Int.min, -1, 0, 1, 9, 10, 99, 100, Int.max])
        try Compare.expectSame([Int8.min, Int8.max])
        try Compare.expectSame([Int16.min, Int16.max])
        try Compare.expectSame([Int32.min, Int32.max])
        try Compare.expectSame([Int64.min, Int64.max])
        try Compare.expectSame([UInt.min, UInt.max])
        try Compare.expectSame([UInt8.max, 0])
        try Compare.expectSame([UInt16.max, 0])
        try Compare.expectSame([UInt32.max, 0])
        try Compare.expectSame([UInt64.max, 10_000_000_000_000_000_000])
        // The concrete overloads of each container, not just the generic path.
        let all = Custom { encoder in
            var keyed = encoder.container(keyedBy: NamedKey.self)
            try keyed.encode(Int8.min, forKey: NamedKey("i8"))
            try keyed.encode(Int16.min, forKey: NamedKey("i16"))
            try keyed.encode(Int32.min, forKey: NamedKey("i32"))
            try keyed.encode(Int64.min, forKey: NamedKey("i64"))
            try keyed.encode(Int.min, forKey: NamedKey("i"))
            try keyed.encode(UInt8.max, forKey: NamedKey("u8"))
            try keyed.encode(UInt16.max, forKey: NamedKey("u16"))
            try keyed.encode(UInt32.max, forKey: NamedKey("u32"))
            try keyed.encode(UInt64.max, forKey: NamedKey("u64"))
            try keyed.encode(UInt.max, forKey: NamedKey("u"))
            try keyed.encode(true, forKey: NamedKey("t"))
            try keyed.encode(false, forKey: NamedKey("f"))
            try keyed.encode(Float(0.1), forKey: NamedKey("float"))
            try keyed.encode(1e21, forKey: NamedKey("double"))
            try keyed.encode("s", forKey: NamedKey("string"))
            var list = keyed.nestedUnkeyedContainer(forKey: NamedKey("list"))
            try list.encode(Int8.min)
            try list.encode(Int16.min)
            try list.encode(Int32.min)
            try list.encode(Int64.min)
            try list.encode(Int.min)
            try list.encode(UInt8.max)
            try list.encode(UInt16.max)
            try list.encode(UInt32.max)
            try list.encode(UInt64.max)
            try list.encode(UInt.max)
            try list.encode(true)
            try list.encode(Float(-0.0))
            try list.encode(2.5)
            try list.encode("s")
        }
        try Compare.expectSame(all)
        for value in [Custom { var c = $0.singleValueContainer(); try c.encode(Int8(-3)) },
                      Custom { var c = $0.singleValueContainer(); try c.encode(UInt16(7)) },
                      Custom { var c = $0.singleValueContainer(); try c.encode(Float(1e7)) },
                      Custom { var c = $0.singleValueContainer(); try c.encode(false) }] {
            try Compare.expectSame([value])
        }
    }

    @Test func floatingPointFormatting() throws {
        let doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 1.5, 100, 1e15, 1e16, 1e21, 1e-5, 1e-7, 0.0001, 1.0 / 3, 123456789012345680,
            9007199254740992, (9007199254740992 as Double).nextUp, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, .pi,
        ]
        for value in doubles { #expect(try StreamingJSONEncoder().encode(value) == [UInt8](try JSONEncoder().encode(value)), "\(value)") }
        let floats: [Float] = [0, -0.0, 1, 0.1, 16777216, 1e7, 1e-7, 3.4e38, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi]
        for value in floats { #expect(try StreamingJSONEncoder().encode(value) == [UInt8](try JSONEncoder().encode(value)), "\(value)") }
    }

    static let strings = Gen<UInt64>.value(in: 0...UInt64.max).array(of: 0...40)
        .map { bits in String(String.UnicodeScalarView(bits.map(randomScalar))) }

    @Test func randomStringsAsValuesAndKeys() async {
        await propertyCheck(count: 500, input: Self.strings, Self.strings) { value, key throws in
            let members = [key: value, key + "/": value + "\""]
            #expect(try StreamingJSONEncoder().encode(value) == [UInt8](try JSONEncoder().encode(value)))
            #expect(try StreamingJSONEncoder().encode([key, value]) == [UInt8](try JSONEncoder().encode([key, value])))
            try Compare.expectSame(members)
        }
    }

    @Test func randomIntegers() async {
        await propertyCheck(
            count: 300, input: Gen.int64(), Gen.uint64(), Gen.int32().array(of: 0...8)
        ) { signed, unsigned, small throws in
            #expect(try StreamingJSONEncoder().encode(signed) == [UInt8](try JSONEncoder().encode(signed)))
            #expect(try StreamingJSONEncoder().encode(unsigned) == [UInt8](try JSONEncoder().encode(unsigned)))
            #expect(try StreamingJSONEncoder().encode(small) == [UInt8](try JSONEncoder().encode(small)))
            #expect(try StreamingJSONEncoder().encode(Int(signed >> 7)) == [UInt8](try JSONEncoder().encode(Int(signed >> 7))))
        }
    }

    @Test func randomDoublesAndFloats() async {
        await propertyCheck(count: 500, input: Gen.uint64(), Gen.uint32()) { doubleBits, floatBits throws in
            let double = Double(bitPattern: doubleBits)
            let float = Float(bitPattern: floatBits)
            if double.isFinite {
                #expect(try StreamingJSONEncoder().encode([double]) == [UInt8](try JSONEncoder().encode([double])), "\(double)")
            } else {
                #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode([double]) }
            }
            if float.isFinite {
                #expect(try StreamingJSONEncoder().encode([float]) == [UInt8](try JSONEncoder().encode([float])), "\(float)")
            }
        }
    }

    @Test func randomNestedValues() async {
        await propertyCheck(count: 400, input: Gen.uint64()) { seed throws in
            try Compare.expectSame(Tree.grow(seed: seed), "seed \(seed)")
        }
    }

    /// The comparison itself tells apart what it must.
    @Test func comparisonCatchesDivergence() throws {
        func shape(_ text: String) throws -> JSONShape { try JSONShape(Array(text.utf8)) }
        #expect(try shape(#"{"a":1,"b":[2]}"#) == shape(#"{"b":[2],"a":1}"#))
        #expect(try shape(#"["\/"]"#) != shape(#"["/"]"#))
        #expect(try shape(#"["\u001f"]"#) != shape(#"["\u001F"]"#))
        #expect(try shape("[1]") != shape("[1.0]"))
        #expect(try shape(#"{"a":1}"#) != shape(#"{"a":1,"a":1}"#))
        #expect(try shape("[1,2]") != shape("[2,1]"))
        #expect(throws: JSONShape.Malformed.self) { try shape("[1, 2]") }
        #expect(throws: JSONShape.Malformed.self) { try shape("{\"a\":1}x") }
        let order = try JSONShape.keyOrder(Array(#"{"b":{"y":1,"x":2},"a":[{"c":3}]}"#.utf8))
        #expect(order == [["b", "a"], ["y", "x"], ["c"]], "\(order)")
    }
}
