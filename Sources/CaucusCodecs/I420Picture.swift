/// A picture in I420 (planar 4:2:0, BT.601 limited range): what the VP8 encoder takes and the
/// decoder gives. Even width and height.
public struct I420Picture: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public var luma: [UInt8]
    public var blueDifference: [UInt8]
    public var redDifference: [UInt8]

    public init(width: Int, height: Int, luma: [UInt8], blueDifference: [UInt8], redDifference: [UInt8]) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "I420 needs an even, non-empty size")
        precondition(luma.count == width * height && blueDifference.count == width * height / 4 && redDifference.count == width * height / 4)
        self.width = width
        self.height = height
        self.luma = luma
        self.blueDifference = blueDifference
        self.redDifference = redDifference
    }

    /// A picture of one colour (8-bit RGB).
    public init(width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8) {
        let (y, u, v) = Self.limitedRange(red: red, green: green, blue: blue)
        self.init(
            width: width, height: height, luma: [UInt8](repeating: y, count: width * height),
            blueDifference: [UInt8](repeating: u, count: width * height / 4), redDifference: [UInt8](repeating: v, count: width * height / 4))
    }

    /// The mean colour, back in 8-bit RGB.
    public var meanColour: (red: Double, green: Double, blue: Double) {
        func mean(_ plane: [UInt8]) -> Double { Double(plane.reduce(0) { $0 + Int($1) }) / Double(plane.count) }
        let (y, u, v) = (mean(luma) - 16, mean(blueDifference) - 128, mean(redDifference) - 128)
        return (1.164 * y + 1.596 * v, 1.164 * y - 0.392 * u - 0.813 * v, 1.164 * y + 2.017 * u)
    }

    static func limitedRange(red: UInt8, green: UInt8, blue: UInt8) -> (UInt8, UInt8, UInt8) {
        let (r, g, b) = (Double(red), Double(green), Double(blue))
        let y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
        let u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
        let v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
        return (UInt8(y.rounded()), UInt8(u.rounded()), UInt8(v.rounded()))
    }
}
