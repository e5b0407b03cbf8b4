@testable import CaucusServer
import CaucusProtocol
import NIOCore
import NIOWebSocket
import Testing

/// A session that breaks (its store failed: 4006; it moved: 4007) answers every request it
/// held, and the handler answers those it had read but not handed on; a request in hand that
/// reached the session only after the break is answered by its conversation. That answer
/// comes after the session asked for the close: the handler holds the close for it, so that no
/// request read is left unanswered, and nothing is answered twice.
@Suite struct HeldCloseTests {
    static let answer = SessionActor.encode(.reply(re: 2, result: .done(seq: nil)), with: .caucus)

    @Test(arguments: [CloseCode.storeFailure, .moved])
    func theAnswerToTheRequestInHandGoesOutBeforeTheClose(_ code: CloseCode) async throws {
        let (harness, connection) = try await Self.requestInHand("late")

        connection.close(code, reason: "The session could not be saved.")
        await harness.channel.testingEventLoop.run()
        #expect(try await harness.nextFrame() == nil, "the close went out with a request in hand")

        // The conversation answers (the session was already broken when the request reached it).
        connection.answer(Self.answer, to: 2)
        harness.conversation.release()
        let first = try #require(try await Self.nextFrame(of: harness), "nothing was written")
        #expect(first.opcode == .text && String(decoding: first.payload, as: UTF8.self).contains(#""re":2"#), "\(first)")
        // The close follows once the handler's task reports back, which may be after the answer.
        let close = try #require(try await Self.nextFrame(of: harness), "the close never went out")
        #expect(close.opcode == .connectionClose && close.payload.count >= 2, "\(close)")
        #expect(close.payload.prefix(2).elementsEqual(withUnsafeBytes(of: code.rawValue.bigEndian, Array.init)))
    }

    @Test func whatTheSessionAnsweredAsItBrokeIsNotAnsweredAgain() async throws {
        let (harness, connection) = try await Self.requestInHand("held")

        connection.answeredAtBreak([2])
        connection.close(.storeFailure, reason: "The session could not be saved.")
        connection.answer(Self.answer, to: 2)
        harness.conversation.release()
        let first = try #require(try await Self.nextFrame(of: harness), "nothing was written")
        #expect(first.opcode == .connectionClose, "answered twice: \(String(decoding: first.payload, as: UTF8.self))")
    }

    @Test func aRequestThatStaysInHandHoldsTheCloseOnlyForTheCloseTimeout() async throws {
        let (harness, connection) = try await Self.requestInHand("stuck")

        connection.close(.storeFailure, reason: "The session could not be saved.")
        await harness.channel.testingEventLoop.advanceTime(by: HandlerHarness.closeTimeout - .milliseconds(1))
        #expect(try await harness.nextFrame() == nil)
        await harness.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(try await harness.nextCloseCode() == CloseCode.storeFailure.rawValue)
        harness.conversation.release()
    }

    /// A handler with one chat (id 2) in hand, and the connection the session writes to.
    static func requestInHand(_ text: String) async throws -> (HandlerHarness, ClientConnection) {
        let harness = try await HandlerHarness.start()
        let connection = ClientConnection(queueLimit: 16, channel: harness.channel)
        harness.conversation.hold()
        try await harness.send(text: #"{"id":2,"op":"chat","text":""# + text + #""}"#)
        await harness.conversation.waitForMessages(1)
        return (harness, connection)
    }

    /// The next frame written, once the handler's task for the message in hand has finished
    /// (it reports back through the event loop, from a task of its own).
    static func nextFrame(of harness: HandlerHarness) async throws -> (opcode: WebSocketOpcode, payload: [UInt8])? {
        for _ in 0..<2_000 {
            if let frame = try await harness.nextFrame() { return frame }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}
