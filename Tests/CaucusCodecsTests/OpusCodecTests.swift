import CaucusCodecs
import Testing

/// libopus through CaucusCodecs: a tone encoded and decoded keeps its pitch; a lost packet is
/// concealed; bad input is refused with libopus's reason.
@Suite struct OpusCodecTests {
    @Test func aToneKeepsItsPitch() throws {
        let encoder = try OpusEncoder(bitsPerSecond: 64_000)
        let decoder = try OpusDecoder()
        var decoded: [Int16] = []
        for frame in Signals.tone(440, frames: 50) {
            let packet = try encoder.encode(frame)
            #expect(!packet.isEmpty && packet.count < 400)
            decoded += try decoder.decode(packet)
        }
        #expect(decoded.count == 50 * 960 * 2)
        // The codec's start-up (its look-ahead and first frames) left out.
        let frequency = Signals.frequency(of: Array(decoded[(10 * 1920)...]))
        #expect(abs(frequency - 440) < 440 * 0.02, "\(frequency) Hz")
    }

    @Test func aLostPacketIsConcealed() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        for frame in Signals.tone(440, frames: 5) { _ = try decoder.decode(try encoder.encode(frame)) }
        #expect(try decoder.decode(nil).count == 960 * 2)
    }

    @Test func badInputIsRefusedWithTheLibrarysReason() throws {
        #expect(throws: CodecError.self) { try OpusEncoder(channels: 3) }
        let encoder = try OpusEncoder()
        let error = #expect(throws: CodecError.self) { try encoder.encode([Int16](repeating: 0, count: 2 * 333)) }
        #expect(error?.library == .opus && error?.description.contains("opus_encode") == true)
        #expect(throws: CodecError.self) { try encoder.encode([]) }
    }
}
