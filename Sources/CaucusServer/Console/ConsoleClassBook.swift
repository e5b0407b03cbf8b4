import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// What the server remembers of the console's classes that their codes cannot say: whether a
/// class has opened or ended, and its host link's current generation. Kept in the data folder
/// (`console-classes.json`, rewritten whole on each change), so that after a restart an ended
/// class's links still say it ended and a replaced host link stays refused. The running
/// session a class is, is the store's business: it carries the class id as its
/// `session_key`, saved with the session's first event.
///
/// A class is `opened` when made (`POST /console/class`) or when a host link the server has not
/// seen (`caucus link`) is first used, `started` once its host was given a token, and
/// `ended` once it is seen to be over: its session gone or another class running under its
/// name. Records older than a code's lifetime are dropped: their codes have expired.
final class ConsoleClassBook: Sendable {
    struct Record: Codable, Sendable, Equatable {
        enum State: String, Codable, Sendable { case opened, started, ended }
        let app: String
        let session: String
        let id: String
        var state: State
        var hostGeneration: Int
        let createdAt: Int64
        var startedAt: Int64?
        /// Whether a session running as this class was ever seen: after it, no session means ended.
        var seenRunning: Bool
    }

    /// What a class's name is doing now, as the registry sees it.
    enum Running: Equatable {
        case nothing
        case thisClass
        case anotherSession
    }

    enum Standing: Equatable {
        /// Not opened by its host yet (or opened, and the host's join is on its way).
        case notOpen
        case running
        case ended
        /// Another class (or a session not from a console link) runs under the name.
        case nameTaken
    }

    /// How long a started class may go unseen before it counts as over: long enough for the
    /// host's join (a password typed), and the host token's lifetime, so that a token given to
    /// open a class cannot open it later.
    static let openingMilliseconds: Int64 = 10 * 60_000

    static let fileName = "console-classes.json"

    private let path: String?
    private let records: NIOLockedValueBox<[String: Record]>

    /// The book kept at `path` (nil: in memory only).
    init(path: String?) {
        self.path = path
        var loaded: [String: Record] = [:]
        if let path, let data = FileManager.default.contents(atPath: path),
            let list = try? JSONDecoder().decode([Record].self, from: data)
        {
            for record in list { loaded[record.id] = record }
        }
        records = NIOLockedValueBox(loaded)
    }

    func record(_ id: String) -> Record? {
        records.withLockedValue { $0[id] }
    }

    /// A new class `id` of `session`: refused (1021) while a class of the name runs or is opening;
    /// a class of the name that was made and never opened gives way (it ends).
    func open(_ id: String, app: String, session: String, running: Running, at now: Instant) throws(CaucusError) -> Record {
        if running != .nothing { throw Self.nameTaken(session) }
        let made: Record? = update { records in
            var given: [String] = []
            for (id, record) in records where record.app == app && SessionName.matches(record.session, session) {
                switch Self.standing(of: record, running: .nothing, at: now).standing {
                case .ended: given.append(id)
                case .notOpen where record.state == .opened: given.append(id)
                default: return nil
                }
            }
            for id in given { records[id]?.state = .ended }
            let record = Record(
                app: app, session: session, id: id, state: .opened, hostGeneration: 0,
                createdAt: now.milliseconds, startedAt: nil, seenRunning: false)
            records[record.id] = record
            return record
        }
        guard let made else { throw Self.nameTaken(session) }
        return made
    }

    /// Where class `id` stands, noting what it learns (seen running, ended). A class this
    /// server never recorded (a `caucus link` host link not used yet) is recorded as opened
    /// when `adopt` says so (its host is asking).
    func standing(of id: String, app: String, session: String, running: Running, adopt: Bool, at now: Instant) -> (standing: Standing, record: Record?) {
        let (standing, record) = update { (records: inout [String: Record]) -> (Standing, Record?) in
            guard let known = records[id] ?? (adopt ? Self.adopted(id, app: app, session: session, at: now) : nil) else {
                return running == .nothing ? (Standing.notOpen, nil) : (running == .thisClass ? .running : .nameTaken, nil)
            }
            let (standing, updated) = Self.standing(of: known, running: running, at: now)
            records[id] = updated
            return (standing, updated)
        }
        return (standing, record)
    }

    /// The class's host was given a token to open it.
    func started(_ id: String, at now: Instant) {
        update { records in
            guard records[id]?.state == .opened || records[id]?.state == .started else { return }
            records[id]?.state = .started
            records[id]?.startedAt = now.milliseconds
        }
    }

    /// The next host link generation of class `id` (the host replaced its link).
    func replaceHostLink(of id: String) -> Int? {
        update { (records: inout [String: Record]) -> Int? in
            guard records[id] != nil, records[id]?.state != .ended else { return nil }
            records[id]?.hostGeneration += 1
            return records[id]?.hostGeneration
        }
    }

    private static func adopted(_ id: String, app: String, session: String, at now: Instant) -> Record {
        Record(app: app, session: session, id: id, state: .opened, hostGeneration: 0, createdAt: now.milliseconds, startedAt: nil, seenRunning: false)
    }

    private static func standing(of record: Record, running: Running, at now: Instant) -> (standing: Standing, record: Record) {
        var record = record
        if record.state == .ended { return (.ended, record) }
        switch running {
        case .thisClass:
            record.state = .started
            record.seenRunning = true
            return (.running, record)
        case .anotherSession:
            if record.state == .started {
                record.state = .ended
                return (.ended, record)
            }
            return (.nameTaken, record)
        case .nothing:
            let opening = record.startedAt.map { now.milliseconds - $0 < openingMilliseconds } ?? false
            if record.state == .started && (record.seenRunning || !opening) {
                record.state = .ended
                return (.ended, record)
            }
            return (.notOpen, record)
        }
    }

    private static func nameTaken(_ session: String) -> CaucusError {
        CaucusError(.sessionAlreadyLive, "A class named \(session) is running or opening: its host link is the way in, or choose another name.")
    }

    /// Changes the records under the lock and, when they changed, writes them out.
    private func update<Result>(_ change: (inout [String: Record]) -> Result) -> Result {
        records.withLockedValue { records in
            let before = records
            let result = change(&records)
            if records != before { save(records) }
            return result
        }
    }

    private func save(_ records: [String: Record]) {
        guard let path else { return }
        let oldest = Int64(Date().timeIntervalSince1970 * 1000) - Int64(ConsoleClassCodes.lifetimeSeconds) * 1000 - Self.openingMilliseconds
        let kept = records.values.filter { $0.createdAt >= oldest }.sorted { $0.createdAt < $1.createdAt }
        guard let data = try? JSONEncoder().encode(kept) else { return }
        // Written beside and renamed over: a crash mid-write never leaves half a book.
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
