// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import CaucusCodecs

/// The moving test pattern `caucus client --publish-pattern` sends: a background of one colour
/// crossed by a vertical bar of another, an eighth of the width, that moves right by
/// `step` pixels a frame and wraps around. The bar always covers the same area, so every
/// frame's mean colour is the same (`meanColour`): a receiver can check what it decoded.
struct TestPattern: Sendable {
    static let background: (red: UInt8, green: UInt8, blue: UInt8) = (40, 60, 200)
    static let bar: (red: UInt8, green: UInt8, blue: UInt8) = (240, 240, 240)

    let size: PictureSize
    /// Pixels the bar moves each frame (even, so the chroma planes follow it exactly).
    let step: Int

    init(size: PictureSize) {
        self.size = size
        step = max(2, size.width / 64 * 2)
    }

    /// The bar's width in luma pixels (even).
    var barWidth: Int { max(2, size.width / 16 * 2) }

    /// Frame `index`'s picture.
    func picture(_ index: Int) -> I420Picture {
        let (width, height) = (size.width, size.height)
        let (backY, backU, backV) = Self.planes(Self.background)
        let (barY, barU, barV) = Self.planes(Self.bar)
        let left = (index * step) % width
        // By luma column, whether the bar covers it (wrapping at the right edge).
        let covered = (0..<width).map { column in (column - left + width) % width < barWidth }
        var lumaRow = [UInt8](repeating: backY, count: width)
        var blueRow = [UInt8](repeating: backU, count: width / 2)
        var redRow = [UInt8](repeating: backV, count: width / 2)
        for column in 0..<width where covered[column] {
            lumaRow[column] = barY
            blueRow[column / 2] = barU
            redRow[column / 2] = barV
        }
        return I420Picture(
            width: width, height: height, luma: Array([[UInt8]](repeating: lumaRow, count: height).joined()),
            blueDifference: Array([[UInt8]](repeating: blueRow, count: height / 2).joined()),
            redDifference: Array([[UInt8]](repeating: redRow, count: height / 2).joined()))
    }

    /// A colour's luma and chroma values, as CaucusCodecs converts it.
    private static func planes(_ colour: (red: UInt8, green: UInt8, blue: UInt8)) -> (UInt8, UInt8, UInt8) {
        let dot = I420Picture(width: 2, height: 2, red: colour.red, green: colour.green, blue: colour.blue)
        return (dot.luma[0], dot.blueDifference[0], dot.redDifference[0])
    }

    /// The mean colour of every frame, in 8-bit RGB: the bar's share of the background's.
    var meanColour: (red: Double, green: Double, blue: Double) {
        let share = Double(barWidth) / Double(size.width)
        func mix(_ back: UInt8, _ bar: UInt8) -> Double { Double(back) * (1 - share) + Double(bar) * share }
        return (mix(Self.background.red, Self.bar.red), mix(Self.background.green, Self.bar.green), mix(Self.background.blue, Self.bar.blue))
    }
}
#endif
