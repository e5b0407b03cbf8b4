@testable import CaucusServer
import Testing

/// The `Range` header against a file's size (RFC 9110 §14): one range served, the rest ignored
/// or unsatisfiable.
struct ByteRangeRequestTests {
    @Test(arguments: [
        ("bytes=0-99", ByteRangeRequest.part(0...99)),
        ("bytes=100-", .part(100...999)),
        ("bytes=-50", .part(950...999)),
        ("bytes=-5000", .part(0...999)),
        ("bytes=990-5000", .part(990...999)),
        ("bytes=999-999", .part(999...999)),
        ("bytes= 5-9", .part(5...9)),
        ("Bytes=0-9", .part(0...9)),
        ("BYTES=-10", .part(990...999)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=1000-2000", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-1,5-6", .whole),
        ("bytes=9-3", .whole),
        ("items=0-9", .whole),
        ("bytes=a-b", .whole),
        ("bytes=-", .whole),
        ("bytes=5", .whole),
        ("bytes=+5-9", .whole),
        ("bytes=99999999999999999999-", .whole),
        ("bytes=٣-٩", .whole),
    ])
    func aHeaderAgainstAThousandBytes(_ header: String, _ expected: ByteRangeRequest) {
        #expect(ByteRangeRequest(header: header, size: 1_000) == expected, "\(header)")
    }

    @Test func noHeaderIsTheWholeFileAndAnEmptyFileSatisfiesNoRange() {
        #expect(ByteRangeRequest(header: nil, size: 10) == .whole)
        #expect(ByteRangeRequest(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-1", size: 0) == .unsatisfiable)
    }
}
