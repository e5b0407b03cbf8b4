import Foundation

/// Audio level in dBFS: the RMS of 16-bit samples against full scale (32,768), so a square
/// wave at full scale reads 0 dBFS and a full-scale sine -3.01. Silence reads `floor`.
enum AudioLevel {
    /// The quietest level reported: what silence (or a level below it) reads.
    static let floor = -127.0
    static let fullScale = 32_768.0

    /// The level of samples whose squares (each sample's value squared) average `meanSquare`.
    static func decibels(meanSquare: Double) -> Double {
        guard meanSquare > 0 else { return floor }
        return max(floor, 10 * log10(meanSquare / (fullScale * fullScale)))
    }

    /// The sum of the samples' squares: what `decibels(meanSquare:)` averages.
    static func sumOfSquares(_ samples: [Int16]) -> Double {
        samples.reduce(0) { $0 + Double($1) * Double($1) }
    }
}
