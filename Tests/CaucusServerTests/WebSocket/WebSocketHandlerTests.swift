@testable import CaucusServer
import NIOCore
import NIOWebSocket
import Testing

/// The WebSocket handler driven frame by frame in a testing channel: masking, the close
/// handshake and its codes, fragments, ping and pong, back-pressure and the 1009 handshake.
@Suite struct WebSocketHandlerTests {
    @Test func anUnmaskedFrameIsAProtocolError() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.text, Array(#"{"id":1,"op":"ping"}"#.utf8), masked: false)
        #expect(try await harness.nextCloseCode() == 1002)
        #expect(harness.conversation.received.isEmpty, "the unmasked message was handed on")
    }

    @Test(arguments: [.ping, .connectionClose] as [WebSocketOpcode])
    func anUnmaskedControlFrameIsAProtocolError(_ opcode: WebSocketOpcode) async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(opcode, opcode == .connectionClose ? [0x03, 0xE8] : [1, 2], masked: false)
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func aCloseCodeNoPeerMaySendIsAnswered1002(_ code: UInt16) async throws {
        let harness = try await HandlerHarness.start()
        try await harness.sendRaw(ClientFrameBytes.close(code: code))
        #expect(try await harness.nextCloseCode() == 1002, "close code \(code) was echoed")
        #expect(!harness.isOpen, "the socket stays open after both closes")
    }

    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as [UInt16])
    func aCloseCodeAPeerMaySendIsEchoed(_ code: UInt16) async throws {
        let harness = try await HandlerHarness.start()
        try await harness.sendRaw(ClientFrameBytes.close(code: code, reason: Array("bye, café".utf8)))
        #expect(try await harness.nextCloseCode() == code)
        #expect(!harness.isOpen)
    }

    @Test func anEmptyCloseIsAnswered1000() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.connectionClose, [])
        #expect(try await harness.nextCloseCode() == 1000)
        #expect(!harness.isOpen)
    }

    @Test func aOneByteClosePayloadIsAProtocolError() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.connectionClose, [0x03])
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test(arguments: [[0xC3], [0xFF, 0xFE], [0xED, 0xA0, 0x80], [0x61, 0xE2, 0x82]] as [[UInt8]])
    func aCloseReasonThatIsNotUTF8IsAProtocolError(_ reason: [UInt8]) async throws {
        let harness = try await HandlerHarness.start()
        try await harness.sendRaw(ClientFrameBytes.close(code: 1000, reason: reason))
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test func anOversizeFrameGetsACloseHandshakeNotAReset() async throws {
        let harness = try await HandlerHarness.start()
        let frame = ClientFrameBytes.frame(.text, Array(repeating: UInt8(ascii: "a"), count: HandlerHarness.maxMessageBytes * 4))
        // The header and the first part arrive: the server answers 1009 ...
        try await harness.sendRaw(Array(frame.prefix(100)))
        #expect(try await harness.nextCloseCode() == 1009)
        // ... and the rest of the frame, still on its way, is dropped without tearing the socket down.
        for chunk in stride(from: 100, to: frame.count, by: 1000) {
            try await harness.sendRaw(Array(frame[chunk..<min(chunk + 1000, frame.count)]))
            #expect(harness.isOpen, "the socket was reset while the client was still sending")
        }
        #expect(harness.conversation.received.isEmpty)
        // The client's close completes the handshake.
        try await harness.sendRaw(ClientFrameBytes.close(code: 1009))
        #expect(!harness.isOpen)
        #expect(try await harness.nextFrame() == nil, "the client's close is not answered twice")
    }

    @Test func afterA1009TheServerWaitsForTheClientsCloseOnlySoLong() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.sendRaw(ClientFrameBytes.frame(.binary, Array(repeating: 7, count: HandlerHarness.maxMessageBytes + 1)))
        #expect(try await harness.nextCloseCode() == 1009)
        await harness.channel.testingEventLoop.advanceTime(by: HandlerHarness.closeTimeout - .milliseconds(1))
        #expect(harness.isOpen)
        await harness.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!harness.isOpen)
    }

    @Test func aMessageOverTheLimitAcrossFragmentsIsClosed1009() async throws {
        let harness = try await HandlerHarness.start()
        let half = Array(repeating: UInt8(ascii: "b"), count: HandlerHarness.maxMessageBytes / 2 + 1)
        try await harness.send(.text, half, fin: false)
        try await harness.send(.continuation, half, fin: true)
        #expect(try await harness.nextCloseCode() == 1009)
        #expect(harness.conversation.received.isEmpty)
    }

    @Test func fragmentsAreAssembledAndAPingBetweenThemIsAnswered() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(text: #"{"id":1,"op":"#, fin: false)
        try await harness.send(.ping, Array("are you there".utf8))
        let pong = try #require(try await harness.nextFrame())
        #expect(pong.opcode == .pong)
        #expect(pong.payload == Array("are you there".utf8))
        try await harness.send(.continuation, Array(#""chat","#.utf8), fin: false)
        try await harness.send(.continuation, Array(#""text":"é"}"#.utf8), fin: true)
        await harness.conversation.waitForMessages(1)
        #expect(harness.conversation.received == [#"{"id":1,"op":"chat","text":"é"}"#])
    }

    @Test func aContinuationWithNoMessageIsAProtocolError() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.continuation, Array("x".utf8))
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test func aNewMessageInsideAFragmentedOneIsAProtocolError() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(text: "a", fin: false)
        try await harness.send(text: "b")
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test func textThatIsNotUTF8IsClosed1007() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.text, [0x7B, 0xC3, 0x28, 0x7D])
        #expect(try await harness.nextCloseCode() == 1007)
        #expect(harness.conversation.received.isEmpty)
    }

    @Test func textSplitInsideACharacterIsAssembledBeforeItIsChecked() async throws {
        let harness = try await HandlerHarness.start()
        try await harness.send(.text, [0x22, 0xC3], fin: false)
        try await harness.send(.continuation, [0xA9, 0x22])
        await harness.conversation.waitForMessages(1)
        #expect(harness.conversation.received == ["\"é\""])
    }

    @Test func sixteenWaitingMessagesHoldTheSocketsReadsUntilTheQueueDrains() async throws {
        let harness = try await HandlerHarness.start()
        harness.conversation.hold()
        for number in 1...20 { try await harness.send(text: "\(number)") }
        await harness.conversation.waitForMessages(1)
        // One message in hand, nineteen waiting: more than sixteen, so a read goes no further.
        let before = harness.reads.reads
        try await harness.channel.testingEventLoop.executeInContext { harness.channel.pipeline.read() }
        #expect(harness.reads.reads == before, "the socket was read with a full queue")
        harness.conversation.release()
        await harness.conversation.waitForMessages(20)
        await harness.channel.testingEventLoop.run()
        #expect(harness.reads.reads == before + 1, "the held read was not resumed once the queue drained")
        #expect(harness.conversation.received == (1...20).map(String.init), "messages were handled out of order")
    }

    @Test func reservedBitsAreAProtocolError() async throws {
        let harness = try await HandlerHarness.start()
        var frame = ClientFrameBytes.frame(.text, Array("x".utf8))
        frame[0] |= 0x40
        try await harness.sendRaw(frame)
        #expect(try await harness.nextCloseCode() == 1002)
    }

    @Test func aSilentClientIsClosedAfterAnUnansweredPing() async throws {
        let harness = try await HandlerHarness.start()
        await harness.channel.testingEventLoop.advanceTime(by: HandlerHarness.keepAlive)
        #expect(try await harness.nextFrame()?.opcode == .ping)
        await harness.channel.testingEventLoop.advanceTime(by: HandlerHarness.keepAlive)
        #expect(try await harness.nextCloseCode() == 1001)
    }

    /// Issue 26, item 3: a connection that never joins is closed at the join deadline, with
    /// 4008, and stops counting against its address.
    @Test func aConnectionThatNeverJoinsIsClosedAtTheJoinDeadline() async throws {
        let admission = JoinAdmission(deadline: .seconds(10), limitPerAddress: 5)
        let harness = try await HandlerHarness.start(admission: admission)
        let address = try #require(harness.channel.remoteAddress?.ipAddress ?? "unknown")
        #expect(admission.waitingCount(from: address) == 1)
        await harness.channel.testingEventLoop.advanceTime(by: .seconds(10) - .milliseconds(1))
        #expect(try await harness.nextFrame() == nil, "still open just before the deadline")
        await harness.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(try await harness.nextCloseCode() == 4008)
        #expect(admission.waitingCount(from: address) == 0)
    }

    @Test func aConnectionOverItsAddressesLimitIsClosed4009AtOnce() async throws {
        let admission = JoinAdmission(deadline: .seconds(10), limitPerAddress: 1)
        let first = try await HandlerHarness.start(admission: admission)
        let second = try await HandlerHarness.start(admission: admission)
        #expect(try await second.nextCloseCode() == 4009)
        #expect(try await first.nextFrame() == nil)
        try await first.channel.close()
        let third = try await HandlerHarness.start(admission: admission)
        #expect(try await third.nextFrame() == nil, "the first one's place is free again")
    }
}
