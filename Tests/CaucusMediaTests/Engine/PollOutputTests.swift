import Testing

@testable import CaucusSFU

/// The engine's output queue is handed over by moving each output (``ForwardingEngine/pollOutput(_:)``):
/// in order, every one once, whatever the queue's length, poll after poll on the same storage.
@Suite struct PollOutputTests {
    static func output(_ user: Int) -> ForwardingOutput {
        .rtcp(user: user, packet: [UInt8(truncatingIfNeeded: user), 0xCB, 0, 1], .report)
    }

    static func users(_ outputs: [ForwardingOutput]) -> [Int] {
        outputs.map { output in
            guard case .rtcp(let user, let packet, _) = output, packet == [UInt8(truncatingIfNeeded: user), 0xCB, 0, 1] else { return -1 }
            return user
        }
    }

    @Test(arguments: 0...6) func reversingByMovingReversesAndKeepsEveryOutputWhole(count: Int) {
        var outputs = (0..<count).map(Self.output)
        ForwardingEngine.reverseByMoving(&outputs)
        #expect(Self.users(outputs) == Array((0..<count).reversed()))
    }

    @Test func pollsHandOverEveryOutputInOrderOnceAndWhatTheirBodyQueuesWaitsForTheNext() {
        let engine = ForwardingEngine()
        var next = 0
        for length in [1, 5, 0, 8, 3, 64] {
            let queued = Array(next..<(next + length))
            next += length
            for user in queued { engine.outputs.append(Self.output(user)) }
            var seen: [ForwardingOutput] = []
            engine.pollOutput { seen.append($0) }
            #expect(Self.users(seen) == queued, "\(length) queued")
        }
        engine.outputs.append(Self.output(1_000))
        var first: [ForwardingOutput] = []
        engine.pollOutput { output in
            first.append(output)
            engine.outputs.append(Self.output(1_001))
        }
        #expect(Self.users(first) == [1_000])
        var second: [ForwardingOutput] = []
        engine.pollOutput { second.append($0) }
        #expect(Self.users(second) == [1_001], "queued while the last poll ran")
        var third: [ForwardingOutput] = []
        engine.pollOutput { third.append($0) }
        #expect(third.isEmpty)
    }
}
