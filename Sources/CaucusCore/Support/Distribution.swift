/// Balanced random distribution of users among rooms.
enum Distribution {
    /// Shuffles `candidates` and gives each, in turn, to the least-loaded room that still has
    /// room (the first such room on a tie), so room sizes differ by at most one where
    /// capacities allow. Users no room can take are left out.
    ///
    /// - Returns: for each room, the users added to it.
    static func balanced(_ candidates: [UserID], loads: [Int], capacities: [Int?], entropy: UInt64) -> [[UserID]] {
        var generator = SplitMix64(seed: entropy)
        var order = candidates
        order.shuffle(using: &generator)
        var loads = loads
        var added = Array(repeating: [UserID](), count: loads.count)
        for user in order {
            var best: Int?
            for index in loads.indices where capacities[index].map({ loads[index] < $0 }) ?? true {
                if best.map({ loads[index] < loads[$0] }) ?? true { best = index }
            }
            guard let room = best else { break }
            loads[room] += 1
            added[room].append(user)
        }
        return added
    }
}
