import ArgumentParser

extension Serve {
    /// A size as an operator writes it: bytes, or with K, M, G or T (powers of 1024): `20G`.
    static func byteCount(_ text: String, option: String) throws -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.uppercased())
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            scale = unit
            digits = digits.dropLast()
        }
        guard let number = Int64(digits), number > 0 else {
            throw ValidationError("\(option) is a number of bytes, optionally with K, M, G or T (20G), not \"\(text)\".")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw ValidationError("\(option) \"\(text)\" is too large.") }
        return bytes
    }
}
