import Foundation
import Testing

/// The WebSocket layer itself, seen from a bare socket: messages in fragments, control
/// frames, the close handshake, keep-alive, and each way a client can break the protocol
/// (RFC 6455), which closes the socket with the code that names it.
@Suite struct WebSocketFramingTests {
    private static let text: UInt8 = 1, continuation: UInt8 = 0, close: UInt8 = 8, ping: UInt8 = 9, pong: UInt8 = 10

    @Test func aMessageInFragmentsIsOneRequestAndAPingBetweenThemIsAnsweredFirst() async throws {
        let server = try await TestServer.start()
        let socket = try RawWebSocket(port: server.port)
        try socket.sendTogether([
            RawWebSocket.frame(opcode: Self.text, fin: false, Array(#"{"id": 7, "#.utf8)),
            RawWebSocket.frame(opcode: Self.ping, Array("are you there".utf8)),
            RawWebSocket.frame(opcode: Self.continuation, fin: false, Array(#""op": "pi"#.utf8)),
            RawWebSocket.frame(opcode: Self.continuation, Array(#"ng"}"#.utf8)),
        ])
        let pong = try #require(try await socket.nextFrame())
        #expect(pong == .init(fin: true, opcode: Self.pong, payload: Array("are you there".utf8)))
        let reply = try #require(try await socket.nextFrame())
        #expect(reply.opcode == Self.text && reply.fin)
        #expect(reply.text.contains(#""re":7"#) && reply.text.contains("pong"), "one reply to the whole message: \(reply.text)")
        await server.stop()
    }

    @Test func requestsSentAllAtOnceAreEachAnsweredInOrder() async throws {
        let server = try await TestServer.start()
        let socket = try RawWebSocket(port: server.port)
        // Far more than the handler queues before it stops reading the socket.
        try socket.sendTogether((1...300).map { RawWebSocket.frame(opcode: Self.text, Array(#"{"id": \#($0), "op": "ping"}"#.utf8)) })
        for id in 1...300 {
            let reply = try #require(try await socket.nextFrame())
            #expect(reply.text.contains(#""re":\#(id),"#) || reply.text.contains(#""re":\#(id)}"#), "reply \(id): \(reply.text)")
        }
        await server.stop()
    }

    @Test func textThatIsNotUTF8ClosesWith1007() async throws {
        let server = try await TestServer.start()
        let socket = try RawWebSocket(port: server.port)
        try socket.send(opcode: Self.text, [0x7B, 0xC3, 0x28, 0x7D])
        #expect(try await socket.closeCode() == 1007)
        #expect(try await socket.nextFrame() == nil, "then the socket closes")
        await server.stop()
    }

    @Test func aFrameOrAFragmentedMessageOverTheLimitClosesWith1009() async throws {
        let server = try await TestServer.start(maxFrameBytes: 1024)
        let whole = try RawWebSocket(port: server.port)
        try whole.send(opcode: Self.text, Array(repeating: UInt8(ascii: " "), count: 1025))
        #expect(try await whole.closeCode() == 1009)
        let pieces = try RawWebSocket(port: server.port)
        try pieces.send(opcode: Self.text, fin: false, Array(repeating: UInt8(ascii: " "), count: 600))
        try pieces.send(opcode: Self.continuation, Array(repeating: UInt8(ascii: " "), count: 600))
        #expect(try await pieces.closeCode() == 1009)
        // Just under the limit in pieces is one ordinary message.
        let fits = try RawWebSocket(port: server.port)
        let request = Array(#"{"id": 1, "op": "ping"}"#.utf8)
        try fits.send(opcode: Self.text, fin: false, Array(repeating: UInt8(ascii: " "), count: 1000 - request.count))
        try fits.send(opcode: Self.continuation, request)
        #expect(try #require(try await fits.nextFrame()).text.contains(#""re":1"#))
        await server.stop()
    }

    @Test func reservedBitsAndAStrayContinuationCloseWith1002() async throws {
        let server = try await TestServer.start()
        let reserved = try RawWebSocket(port: server.port)
        try reserved.send(opcode: Self.text, reserved: true, Array(#"{"id": 1, "op": "ping"}"#.utf8))
        #expect(try await reserved.closeCode() == 1002)
        let stray = try RawWebSocket(port: server.port)
        try stray.send(opcode: Self.continuation, Array("tail".utf8))
        #expect(try await stray.closeCode() == 1002)
        let interleaved = try RawWebSocket(port: server.port)
        try interleaved.send(opcode: Self.text, fin: false, Array("{".utf8))
        try interleaved.send(opcode: Self.text, Array("{}".utf8))
        #expect(try await interleaved.closeCode() == 1002)
        await server.stop()
    }

    @Test func aClientsCloseIsEchoedWithItsCodeAndTheSocketCloses() async throws {
        let server = try await TestServer.start()
        let socket = try RawWebSocket(port: server.port)
        try socket.send(opcode: Self.close, [0x0F, 0xA0] + Array("done".utf8))  // 4000
        let echo = try #require(try await socket.nextFrame())
        #expect(echo.closeCode == 4000)
        #expect(try await socket.nextFrame() == nil)
        await server.stop()
    }

    @Test func aClientThatAnswersNoPingIsClosedWith1001AndItsSeatHeld() async throws {
        let server = try await TestServer.start(keepAliveInterval: .milliseconds(1500))
        let host = try await server.joined("Teacher", role: .host)
        let silent = try RawWebSocket(port: server.port)
        try silent.sendText(#"{"id":1,"op":"join","session":"Class","userName":"Mute","token":"\#(try server.token(session: "Class"))"}"#)
        var pings = 0
        var code: Int?
        while let frame = try await silent.nextFrame() {
            if frame.opcode == Self.ping { pings += 1 }
            if frame.opcode == Self.close {
                code = frame.closeCode
                break
            }
        }
        #expect(code == 1001)
        #expect(pings == 1, "closed at the ping after the unanswered one")
        let held = try await within("the seat held") { try await host.event("userReconnecting") }
        #expect((held["event"] as? TestClient.JSON)?["user"] as? Int == 2)
        // The host's library answers pings: it is still connected, several intervals later.
        // (The interval is long enough that a loaded machine still gets the pong back in time.)
        try await Task.sleep(for: .milliseconds(4500))
        _ = try await host.request("ping", [:])
        await server.stop()
    }

    @Test func aHandshakeForAnotherPathIsRefused() async throws {
        let server = try await TestServer.start()
        let refusal = #expect(throws: TestFailure.self) { try RawWebSocket(port: server.port, path: "/socket") }
        #expect(refusal?.description.contains("HTTP/1.1 400") == true, "\(String(describing: refusal))")
        await server.stop()
    }
}
