import NIOCore
import Testing

@testable import CaucusServer

/// Frames the server builds itself: the header goes in the room kept in front of the payload,
/// in each of RFC 6455's three length forms, unmasked.
@Suite struct ServerFramesTests {
    @Test(arguments: [0, 1, 125, 126, 1_000, 65_535, 65_536, 200_000])
    func aTextFrameCarriesItsLengthInTheRightForm(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 % 251) }
        var frame = ServerFrames.text(reservedFront: [UInt8](repeating: 0, count: ServerFrames.headroom) + payload)
        #expect(frame.readInteger(as: UInt8.self) == 0x81, "FIN and opcode text")
        let short = Int(frame.readInteger(as: UInt8.self)!)
        #expect(short & 0x80 == 0, "a server never masks")
        let announced: Int
        switch short {
        case 126: announced = Int(frame.readInteger(as: UInt16.self)!)
        case 127: announced = Int(frame.readInteger(as: UInt64.self)!)
        default: announced = short
        }
        #expect(announced == length)
        #expect((length <= 125 && short == length) || (length > 125 && length <= 65_535 && short == 126) || (length > 65_535 && short == 127))
        #expect(frame.readBytes(length: frame.readableBytes) == payload)
    }

    @Test func aCloseFrameKeepsItsReasonWithinAControlFrameOnAScalarBoundary() {
        var frame = ServerFrames.close(code: 4003, reason: String(repeating: "é", count: 100))
        #expect(frame.readInteger(as: UInt8.self) == 0x88)
        let length = Int(frame.readInteger(as: UInt8.self)!)
        #expect(length <= 125)
        #expect(frame.readInteger(as: UInt16.self) == 4003)
        let reason = frame.readString(length: length - 2)
        #expect(reason == String(repeating: "é", count: 61), "123 bytes of room hold 61 two-byte scalars")
    }
}
