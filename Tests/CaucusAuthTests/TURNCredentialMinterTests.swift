import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// coturn's time-limited credentials (`use-auth-secret`): username `<expiry>:<name>`, password
/// base64(HMAC-SHA1(secret, username)). Known answers from RFC 2202 and from Python's `hmac`
/// and `openssl dgst -sha1 -hmac` (the same values), and Python's `hmac` on credentials minted here.
@Suite struct TURNCredentialMinterTests {
    @Test func thePasswordIsBase64OfHMACSHA1UnderTheSecret() {
        // RFC 2202, HMAC-SHA1 test case 2: effcdf6ae5eb2fa2d27416d5f184df9c259a7c79.
        #expect(TURNCredentialMinter(secret: "Jefe", lifetimeSeconds: 1).password(for: "what do ya want for nothing?") == "7/zfauXrL6LSdBbV8YTfnCWafHk=")
        // printf '1790000000:3.1' | openssl dgst -sha1 -hmac north-wind -binary | base64
        #expect(TURNCredentialMinter(secret: "north-wind", lifetimeSeconds: 1).password(for: "1790000000:3.1") == "2LpdpU/yMIXL7qlxj39IAh0Yuvs=")
    }

    @Test func theUsernameIsTheExpiryThenTheName() {
        let minter = TURNCredentialMinter(secret: "0123456789abcdef0123456789abcdef", lifetimeSeconds: 12 * 3600)
        let credential = minter.credential(for: "12.7", at: Instant(milliseconds: 1_790_000_000_999))
        // The expiry counts from the second `now` falls in: never later than the lifetime allows.
        #expect(credential.username == "1790043200:12.7")
        #expect(credential.password == "oUCGhHBeuYrTdyf9uG1WBH+5LCI=")
        #expect(credential.expiresAt == 1_790_043_200)
    }

    @Test func anotherSecretOrAnotherNameGivesAnotherPassword() {
        let now = Instant(seconds: 1_790_000_000)
        let minter = TURNCredentialMinter(secret: "north-wind", lifetimeSeconds: 60)
        let mine = minter.credential(for: "3.1", at: now)
        #expect(TURNCredentialMinter(secret: "north-wind!", lifetimeSeconds: 60).credential(for: "3.1", at: now).password != mine.password)
        #expect(minter.credential(for: "3.2", at: now).password != mine.password)
        #expect(minter.credential(for: "3.1", at: now.adding(seconds: 1)).username == "1790000061:3.1")
    }

    @Test func pythonsHMACAgreesWithWhatIsMinted() async throws {
        let secret = "s3cr3t with spaces, ünïcode and = signs"
        let credential = TURNCredentialMinter(secret: secret, lifetimeSeconds: 3600).credential(for: "41.9", at: Instant(seconds: 1_800_000_000))
        let script = """
            import base64, hashlib, hmac, sys
            print(base64.b64encode(hmac.new(sys.argv[1].encode(), sys.argv[2].encode(), hashlib.sha1).digest()).decode())
            """
        let result = try await Python.run(script, arguments: [secret, credential.username])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == credential.password)
        #expect(credential.username == "1800003600:41.9")
    }
}
