/// The users whose slots a sliced handover has yet to recompute, first named first, each once,
/// and which of them arrived somewhere new (they learn who speaks there with their slot map).
struct PendingRouting {
    private var queue: [Int] = []
    private var head = 0
    private var queued: Set<Int> = []
    private(set) var arrivals: Set<Int> = []

    var isEmpty: Bool { head == queue.count }

    /// What the queue's array holds, users already taken included.
    var storedUsers: Int { queue.count }

    /// Whether `user` waits for its recomputation.
    func contains(_ user: Int) -> Bool { queued.contains(user) }

    /// Adds `users` behind those already waiting (one already waiting keeps its place).
    mutating func enqueue(_ users: [Int], arrivals arrived: [Int]) {
        for user in users where queued.insert(user).inserted { queue.append(user) }
        arrivals.formUnion(arrived)
    }

    /// Takes the next users off the queue while their cost (`cost` each, positive) stays
    /// within `budget`; at least one user.
    mutating func takeSlice(budget: Int, cost: (Int) -> Int) -> [Int] {
        var slice: [Int] = []
        var spent = 0
        while head < queue.count {
            let user = queue[head]
            let price = cost(user)
            guard slice.isEmpty || spent <= budget - price else { break }
            spent += price
            slice.append(user)
            queued.remove(user)
            head += 1
        }
        // The users taken go once they are half the array: a steady flow of handovers (a
        // thousand publishing at once) never lets the queue empty.
        if head > queue.count / 2 {
            queue.removeFirst(head)
            head = 0
        }
        return slice
    }

    /// Takes `users`' arrivals: they are announced with the slice that recomputes them.
    mutating func takeArrivals(among users: [Int]) -> [Int] {
        guard !arrivals.isEmpty else { return [] }
        return users.filter { arrivals.remove($0) != nil }.sorted()
    }
}
