import CaucusCore
import CaucusProtocol
import Foundation
import NIOWebSocket
import Testing

/// 10,000 malformed, mistyped, unknown, oversize or forbidden frames: each gets an error
/// reply or a close, the server stays up, and the session does not change.
@Suite(.serialized) struct MalformedFrameTests {
    /// Well-formed requests to break.
    static let valid: [String] = [
        #"{"id":1,"op":"ping"}"#,
        #"{"id":2,"op":"chat","text":"hello"}"#,
        #"{"id":3,"op":"joinRoom","room":1}"#,
        #"{"id":4,"op":"assign","users":[2,3],"room":1}"#,
        #"{"id":5,"op":"start","durationSeconds":60,"autoAssign":true}"#,
        #"{"id":6,"op":"createRooms","count":2,"definition":{"capacity":4,"audio":true}}"#,
        #"{"id":7,"op":"updateSettings","settings":{"countdownSeconds":5}}"#,
        #"{"id":8,"op":"answerHelp","request":1,"answer":"join"}"#,
    ]

    /// Requests that are well-formed but that a participant may not make, or that do not fit
    /// the session now: refused without any change.
    static let forbidden: [String] = [
        #"{"id":9,"op":"commit"}"#, #"{"id":9,"op":"addToPreList","names":["A"]}"#, #"{"id":9,"op":"remove","user":1}"#,
        #"{"id":9,"op":"makeManager","user":2}"#, #"{"id":9,"op":"start"}"#, #"{"id":9,"op":"destroyAll"}"#,
        #"{"id":9,"op":"joinRoom","room":99}"#, #"{"id":9,"op":"returnToMain"}"#, #"{"id":9,"op":"getPreList"}"#,
        #"{"id":9,"op":"join","session":"Class","userName":"X","token":"x.y.z"}"#, #"{"id":9,"op":"requestHelp"}"#,
        #"{"id":9,"op":"chat","text":""}"#, #"{"id":9,"op":"rename","user":1,"name":"Boss"}"#,
    ]

    enum Case {
        /// Sent on the joined participant's connection; must get an error reply.
        case onSession(String)
        case binaryOnSession([UInt8])
        /// Sent on a fresh, never-joined connection; must get an error reply or a close.
        case alone([UInt8])
    }

    static func cases(count: Int, maxFrameBytes: Int) -> [Case] {
        var generator = SplitMix64(seed: 2026)
        func pick<T>(_ items: [T]) -> T { items[Int(generator.next() % UInt64(items.count))] }
        func number(_ upTo: Int) -> Int { Int(generator.next() % UInt64(upTo)) }
        var cases: [Case] = []
        while cases.count < count {
            switch number(100) {
            case 0..<25:
                let frame = pick(valid)
                cases.append(.onSession(String(frame.prefix(number(frame.count)))))
            case 25..<35:
                cases.append(.onSession(pick(["[]", "42", "\"text\"", "null", "true", "", " ", "{", "}", "[{}]", "{\"id\":1}{"])))
            case 35..<55:
                // A required argument of the wrong type.
                let (op, field, wrong) = pick([
                    ("joinRoom", "room", ["\"x\"", "-1.5", "[1]", "{}", "true", "null", "9999999999999999999999"]),
                    ("assign", "users", ["\"x\"", "[1,\"a\"]", "{}", "7", "[[]]", "null"]),
                    ("chat", "text", ["1", "[]", "{}", "true", "null", "-0.5"]),
                    ("createRooms", "count", ["\"two\"", "2.5", "[]", "{}", "false", "null"]),
                    ("updateSettings", "settings", ["\"x\"", "[]", "3", "{\"countdownSeconds\":\"soon\"}", "null"]),
                    ("addToPreList", "names", ["\"A\"", "[1]", "{}", "null", "[[\"A\"]]"]),
                    ("answerHelp", "answer", ["\"maybe\"", "1", "[]", "null"]),
                    ("setMode", "mode", ["\"seminar\"", "0", "{}", "null"]),
                ])
                let extra = op == "assign" ? #","room":1"# : op == "answerHelp" ? #","request":1"# : ""
                cases.append(.onSession(#"{"id":\#(number(1000)),"op":"\#(op)","\#(field)":\#(pick(wrong))\#(extra)}"#))
            case 55..<65:
                let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
                let op = String((0..<(1 + number(12))).map { _ in pick(letters) })
                if CaucusProtocol.Operation(rawValue: op) != nil { continue }
                cases.append(.onSession(#"{"id":\#(number(1000)),"op":"\#(op)"}"#))
            case 65..<72:
                cases.append(.onSession(pick([#"{"id":1,"op":"assign"}"#, #"{"id":1,"op":"joinRoom"}"#, #"{"id":1,"op":"chat"}"#, #"{"id":1,"op":"resume"}"#, #"{"id":1}"#, #"{"op":"ping"}"#, #"{"id":1,"op":"createRooms"}"#])))
            case 72..<90:
                cases.append(.onSession(pick(forbidden)))
            case 90..<95:
                cases.append(.binaryOnSession((0..<number(64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
            case 95..<97:
                // Truncated UTF-8: a multi-byte character cut short.
                cases.append(.alone(Array(#"{"id":1,"op":"chat","text":"caf"#.utf8) + [0xC3]))
            case 97..<99:
                cases.append(.alone(Array(repeating: UInt8(ascii: "a"), count: maxFrameBytes + 1 + number(1000))))
            default:
                cases.append(.alone(Array(#"{"id":1,"op":"commit"}"#.utf8)))
            }
        }
        return cases
    }

    @Test func tenThousandBadFramesEachGetAnErrorOrACloseAndChangeNothing() async throws {
        let maxFrameBytes = 16 * 1024
        let server = try await TestServer.start(maxFrameBytes: maxFrameBytes)
        let host = try await server.joined("Teacher", role: .host)
        let participant = try await server.joined("Pat")
        let before = try #require(try await host.request("getSnapshot")["snapshot"] as? JSON)
        var errors = 0
        var closes = 0
        for fuzzCase in Self.cases(count: 10_000, maxFrameBytes: maxFrameBytes) {
            switch fuzzCase {
            case .onSession(let text):
                await participant.sendRaw(text)
                let frame = try #require(try await participant.nextFrame(), "the connection closed on \(text)")
                #expect(frame["error"] != nil, "\(text) was accepted: \(frame)")
                errors += 1
            case .binaryOnSession(let bytes):
                await participant.sendBytes(bytes, opcode: .binary)
                let frame = try #require(try await participant.nextFrame())
                #expect((frame["error"] as? JSON)?["code"] as? Int == 1008)
                errors += 1
            case .alone(let bytes):
                let stranger = try await TestClient.connect(to: server)
                await stranger.sendBytes(bytes)
                let reply = try await within("a reply or a close") { try await stranger.nextFrame() }
                if let frame = reply {
                    #expect(frame["error"] != nil)
                    errors += 1
                } else {
                    closes += 1
                }
                await stranger.close()
            }
        }
        #expect(errors + closes == 10_000)
        #expect(closes > 0, "oversize and invalid UTF-8 frames close the connection")
        // Nothing changed, and everyone is still served.
        let after = try #require(try await host.request("getSnapshot")["snapshot"] as? JSON)
        #expect(after["seq"] as? Int == before["seq"] as? Int)
        #expect(await participant.keptEvents().isEmpty, "no event was caused")
        try await participant.request("chat", ["text": "still here"])
        _ = try await within("host hears") { try await host.event("chatMessage") }
        await server.stop()
    }
}
