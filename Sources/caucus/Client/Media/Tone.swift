import Foundation

/// The tone `caucus client --publish-tone` sends: a stereo sine at 48 kHz in 20 ms frames (960
/// samples a channel, what one Opus packet carries), peak `amplitude` of 32,767, continuing
/// from frame to frame without a click.
struct Tone: Sendable {
    static let samplesPerFrame = 960
    static let sampleRate = 48_000.0
    /// 12,000 of 32,767: an RMS of -11.7 dBFS (see `AudioLevel`).
    static let amplitude = 12_000.0

    let hertz: Double

    /// Frame `index`, interleaved left and right.
    func frame(_ index: Int) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(2 * Self.samplesPerFrame)
        for offset in 0..<Self.samplesPerFrame {
            let time = Double(index * Self.samplesPerFrame + offset) / Self.sampleRate
            let sample = Int16(Self.amplitude * sin(2 * .pi * hertz * time))
            samples.append(sample)
            samples.append(sample)
        }
        return samples
    }

    /// The level this tone's frames carry (RFC 6464's dBov, a whole number).
    static var level: Int { Int(AudioLevel.decibels(meanSquare: amplitude * amplitude / 2).rounded()) }
}
