import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// A header or payload that names a member twice is refused: Foundation's decoder would keep
/// the first value and PyJWT the last, so one token would mean two things.
@Suite struct DuplicateMemberTests {
    static let header = #"{"alg":"HS256","typ":"JWT"}"#
    static var basePayload: String { String(decoding: TokenForge.json(Fixture.payload()), as: UTF8.self) }

    /// The payload with `member` put in front once more, with `value`.
    static func payload(repeating member: String, as value: String) -> String {
        "{\"\(member)\":\(value)," + basePayload.dropFirst()
    }

    static func expectDuplicateRefused(_ token: String, member: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: CaucusError.self, sourceLocation: sourceLocation) {
            try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        }
        #expect(error?.code == .tokenMalformed, "\(error?.description ?? "accepted")", sourceLocation: sourceLocation)
        #expect(error?.message.contains("\"\(member)\" twice") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    @Test func theUnalteredTokenVerifies() throws {
        let verified = try Fixture.verifier.verify(
            TokenForge.signed(header: Self.header, payload: Self.basePayload), sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.role == .participant)
    }

    @Test(arguments: [#"{"alg":"HS256","alg":"none","typ":"JWT"}"#, #"{"alg":"HS256","typ":"JWT","alg":"HS256"}"#, #"{"alg":"HS256","typ":"JWT","\u0061lg":"HS512"}"#])
    func aHeaderNamingAlgTwiceIsRefused(_ header: String) {
        Self.expectDuplicateRefused(TokenForge.signed(header: header, payload: Self.basePayload), member: "alg")
    }

    @Test(arguments: [
        ("exp", "\(Fixture.nowSeconds - 1)"), ("role_type", "1"), ("iat", "\(Fixture.nowSeconds)"), ("tpc", #""Other""#),
        ("app_key", #""other-app""#), ("version", "1"),
    ])
    func aPayloadNamingAClaimTwiceIsRefused(_ member: String, _ value: String) {
        Self.expectDuplicateRefused(TokenForge.signed(header: Self.header, payload: Self.payload(repeating: member, as: value)), member: member)
    }

    @Test(arguments: ["{\"alg\":\"HS256\",}", "\u{FEFF}{\"alg\":\"HS256\"}", "{\"alg\":\"HS256\",\"typ\":\"J\u{1}WT\"}"])
    func aHeaderThatIsNotStrictJSONIsMalformed(_ header: String) {
        expectRefusal(TokenForge.signed(header: header, payload: Self.basePayload), .tokenMalformed)
    }
}
