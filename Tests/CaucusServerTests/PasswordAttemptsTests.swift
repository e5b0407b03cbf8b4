@testable import CaucusServer
import CaucusCore
import CaucusTestSupport
import Foundation
import Testing

/// Session passwords cannot be guessed without limit: the machine that counts wrong ones per
/// address and session, then the rule over real sockets.
@Suite(.serialized) struct PasswordAttemptsTests {
    typealias Key = PasswordAttempts.Key
    static let ann = Key(app: "app", session: "class", address: "10.0.0.1")
    static let t0 = Instant(milliseconds: 1_000_000)

    static func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: t0.milliseconds + milliseconds) }

    @Test func theTenthWrongPasswordRefusesTheAddressUntilTheWindowEnds() {
        var attempts = PasswordAttempts(limit: 10, windowMilliseconds: 600_000)
        for step in 0..<9 {
            attempts.failed(Self.ann, now: Self.at(Int64(step) * 1_000))
            #expect(attempts.refusedUntil(Self.ann, now: Self.at(Int64(step) * 1_000)) == nil, "after \(step + 1) wrong")
        }
        attempts.failed(Self.ann, now: Self.at(9_000))
        // Counted from the first wrong one: ten minutes after it, not after the last.
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(9_000)) == Self.at(600_000))
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(599_999)) == Self.at(600_000))
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(600_000)) == nil)
        #expect(attempts.count == 0, "an ended window is forgotten")
    }

    @Test func aRightPasswordForgetsTheCount() {
        var attempts = PasswordAttempts(limit: 10, windowMilliseconds: 600_000)
        for step in 0..<9 { attempts.failed(Self.ann, now: Self.at(Int64(step))) }
        attempts.succeeded(Self.ann)
        for step in 0..<9 { attempts.failed(Self.ann, now: Self.at(100 + Int64(step))) }
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(200)) == nil)
        attempts.failed(Self.ann, now: Self.at(300))
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(300)) == Self.at(100 + 600_000))
    }

    @Test func addressesSessionsAndAppsCountApart() {
        var attempts = PasswordAttempts(limit: 3, windowMilliseconds: 600_000)
        for step in 0..<3 { attempts.failed(Self.ann, now: Self.at(Int64(step))) }
        #expect(attempts.refusedUntil(Self.ann, now: Self.at(10)) != nil)
        for other in [
            Key(app: "app", session: "class", address: "10.0.0.2"), Key(app: "app", session: "other", address: "10.0.0.1"),
            Key(app: "other", session: "class", address: "10.0.0.1"),
        ] {
            #expect(attempts.refusedUntil(other, now: Self.at(10)) == nil, "\(other)")
        }
    }

    @Test func atMostItsCeilingIsRememberedTheOldestGoingFirst() {
        var attempts = PasswordAttempts(limit: 2, windowMilliseconds: 600_000, capacity: 3)
        let keys = (1...4).map { Key(app: "app", session: "class", address: "10.0.0.\($0)") }
        for (index, key) in keys.enumerated() {
            attempts.failed(key, now: Self.at(Int64(index)))
            attempts.failed(key, now: Self.at(Int64(index)))
        }
        #expect(attempts.count == 3)
        #expect(attempts.refusedUntil(keys[0], now: Self.at(10)) == nil, "the oldest gave way")
        for key in keys.dropFirst() { #expect(attempts.refusedUntil(key, now: Self.at(10)) != nil, "\(key)") }
    }

    /// Records forgotten and begun again leave places in the queue; however many, it stays
    /// within twice the ceiling.
    @Test func theQueueStaysBoundedThroughRightAndWrongPasswords() {
        var attempts = PasswordAttempts(limit: 10, windowMilliseconds: 600_000, capacity: 4)
        for step in 0..<10_000 {
            let key = Key(app: "app", session: "class", address: "10.0.0.\(step % 6)")
            attempts.failed(key, now: Self.at(Int64(step)))
            if step % 3 == 0 { attempts.succeeded(key) }
            #expect(attempts.count <= 4 && attempts.queued <= 8)
        }
    }

    /// Over a real socket: thirty wrong passwords, then even the right one is refused (2032) on
    /// that connection and a new one from the same address, the session and its host untouched;
    /// ten minutes on (the server's clock moved by the test), the right password joins.
    @Test func thirtyWrongPasswordsOverTheWireThenRefusedUntilTenMinutesPass() async throws {
        let clock = SkippingClock()
        let server = try await TestServer.start(clock: clock.serverClock)
        let host = try await server.joined("Ada", role: .host, password: "s3cret")
        let guesser = try await TestClient.connect(to: server)
        let token = try server.token(session: "Class")
        func join(_ client: TestClient, _ password: String) async throws -> Int {
            try await client.refused("join", ["session": "Class", "userName": "Bob", "token": token, "password": password])
        }
        #expect(PasswordAttempts().limit == 30)
        for guess in 0..<30 { #expect(try await join(guesser, "guess\(guess)") == 2011) }
        #expect(try await join(guesser, "s3cret") == 2032)
        let another = try await TestClient.connect(to: server)
        #expect(try await join(another, "s3cret") == 2032)
        // Someone else's session is not theirs to lock: the host is still in, alone.
        try await host.request("ping")
        #expect((try await host.request("getSnapshot")["snapshot"] as? JSON)?["users"].map { ($0 as? [Any])?.count } == 1)
        clock.skip(.seconds(600))
        try await another.join(session: "Class", userName: "Bob", token: token, password: "s3cret")
        #expect(await another.user == 2)
        await guesser.close()
        await server.stop()
    }
}
