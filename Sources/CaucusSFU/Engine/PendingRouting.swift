import CaucusMedia

/// The users whose slots a sliced handover or a large location's new speaker order has yet to
/// recompute, first named first, each once, and which of them learn who speaks where they are
/// with their slot map: those who arrived somewhere new (when someone speaks there) and those
/// whose location's order changed (even to nobody).
struct PendingRouting {
    private var queue: [Int] = []
    private var head = 0
    private var queued: Set<Int> = []
    private(set) var arrivals: Set<Int> = []
    private(set) var speakerNews: Set<Int> = []

    var isEmpty: Bool { head == queue.count }

    /// What the queue's array holds, users already taken included.
    var storedUsers: Int { queue.count }

    /// Whether `user` waits for its recomputation.
    func contains(_ user: Int) -> Bool { queued.contains(user) }

    /// Adds `users` behind those already waiting (one already waiting keeps its place).
    mutating func enqueue(_ users: [Int], arrivals arrived: [Int] = [], speakerNews told: [Int] = []) {
        for user in users where queued.insert(user).inserted { queue.append(user) }
        arrivals.formUnion(arrived)
        speakerNews.formUnion(told)
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

    /// Takes who among `users` learns who speaks with the slice that recomputes them, in
    /// order: `always` when their location's order changed, otherwise only when someone speaks.
    mutating func takeAnnouncements(among users: some Collection<Int>) -> [(user: Int, always: Bool)] {
        guard !arrivals.isEmpty || !speakerNews.isEmpty else { return [] }
        var told: [(user: Int, always: Bool)] = []
        for user in users.sorted() {
            let arrived = arrivals.remove(user) != nil
            let news = speakerNews.remove(user) != nil
            if arrived || news { told.append((user, news)) }
        }
        return told
    }
}
