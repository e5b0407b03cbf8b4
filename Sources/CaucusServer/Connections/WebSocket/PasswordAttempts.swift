import CaucusCore
import NIOCore

/// How many wrong session passwords each address has sent for each session: a machine that
/// takes the time with every input. Past ``limit`` wrong ones within ``window`` (counted from
/// the first), the address's joins of that session are refused until the window ends
/// (2032 `passwordAttemptsExceeded`); a right password forgets the count. Without it, a
/// holder of a join token could guess a session's password without limit, from as many
/// connections as its address may open.
///
/// Bounded: at most ``capacity`` addresses and sessions are remembered; the oldest go first,
/// and every input drops what has expired, each record in O(1) amortised (a queue in the order
/// records began, itself at most twice the ceiling). Per node: on several nodes, each counts the joins it serves.
struct PasswordAttempts {
    struct Key: Hashable {
        let app: String
        /// The session's name as names compare (`SessionName.key`).
        let session: String
        let address: String
    }

    private struct Record {
        var failures: Int
        let since: Instant
    }

    let limit: Int
    let window: Int64
    let capacity: Int
    private var records: [Key: Record] = [:]
    /// Each record's key and start, oldest first. A key forgotten (a right password) or begun
    /// again leaves its old place here; a place whose start is not its record's is skipped.
    private var order = CircularBuffer<(key: Key, since: Instant)>()

    /// `window` in milliseconds.
    /// 30 in 10 minutes: a class behind one school NAT shares one address, and its students'
    /// typos count together; a guesser gets 4,320 tries a day from an address (a 4-digit code
    /// falls in days, six letters and digits do not: docs/protocol.md says so).
    init(limit: Int = 30, windowMilliseconds: Int64 = 10 * 60_000, capacity: Int = 65_536) {
        self.limit = max(limit, 1)
        self.window = max(windowMilliseconds, 1)
        self.capacity = max(capacity, 1)
    }

    /// How many records are kept now.
    var count: Int { records.count }

    /// When `key` may try again, if it is refused now; nil when it may join.
    mutating func refusedUntil(_ key: Key, now: Instant) -> Instant? {
        dropExpired(now: now)
        guard let record = records[key], record.failures >= limit else { return nil }
        return Instant(milliseconds: record.since.milliseconds + window)
    }

    /// A wrong password from `key` at `now`.
    mutating func failed(_ key: Key, now: Instant) {
        dropExpired(now: now)
        if let index = records.index(forKey: key) {
            records.values[index].failures += 1
            return
        }
        while records.count >= capacity, let oldest = order.popFirst() {
            if records[oldest.key]?.since == oldest.since { records[oldest.key] = nil }
        }
        records[key] = Record(failures: 1, since: now)
        order.append((key, now))
        // Places left by records forgotten and begun again wait for their turn at the front;
        // past twice the records' ceiling they are swept out at once (amortised over as many
        // appends), so the queue is bounded too.
        if order.count > 2 * capacity {
            order = CircularBuffer(records.sorted { $0.value.since < $1.value.since }.map { ($0.key, $0.value.since) })
        }
    }

    /// How many places the queue holds (tests: it stays bounded).
    var queued: Int { order.count }

    /// A right password from `key`: its count is forgotten.
    mutating func succeeded(_ key: Key) {
        records[key] = nil
    }

    /// Drops the records whose window has ended, and the places of records gone or begun again.
    private mutating func dropExpired(now: Instant) {
        while let first = order.first {
            guard let record = records[first.key], record.since == first.since else {
                order.removeFirst()
                continue
            }
            guard now.milliseconds - record.since.milliseconds >= window else { return }
            records[first.key] = nil
            order.removeFirst()
        }
    }
}
