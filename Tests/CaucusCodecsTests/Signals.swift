// The tests are built with the package's Codecs trait (libopus, libvpx), as scripts/test does.
#if !Codecs
#error("build the tests with the Codecs trait: swift build --traits Codecs && swift test --traits Codecs (docs/testing.md)")
#endif
import CaucusCodecs
import Foundation

/// Test signals and what is measured of them.
enum Signals {
    /// `frames` frames of 20 ms of a stereo sine at `frequency`, 48 kHz, interleaved.
    static func tone(_ frequency: Double, frames: Int) -> [[Int16]] {
        (0..<frames).map { frame in
            (0..<960).flatMap { index -> [Int16] in
                let t = Double(frame * 960 + index) / 48_000
                let sample = Int16(12_000 * sin(2 * .pi * frequency * t))
                return [sample, sample]
            }
        }
    }

    /// The frequency of a stereo signal's left channel, from its zero crossings.
    static func frequency(of interleaved: [Int16]) -> Double {
        let left = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
        var crossings = 0
        for index in 1..<left.count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(left.count) / 48_000)
    }
}
