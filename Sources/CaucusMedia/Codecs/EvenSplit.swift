/// Cuts `count` bytes into as few parts of at most `budget` bytes as possible, of sizes that
/// differ by at most one: the larger parts first.
enum EvenSplit {
    static func ranges(of count: Int, budget: Int) -> [Range<Int>] {
        guard count > 0, budget > 0 else { return [] }
        let parts = (count + budget - 1) / budget
        let (base, larger) = count.quotientAndRemainder(dividingBy: parts)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(parts)
        var start = 0
        for index in 0..<parts {
            let size = base + (index < larger ? 1 : 0)
            ranges.append(start..<(start + size))
            start += size
        }
        return ranges
    }
}
