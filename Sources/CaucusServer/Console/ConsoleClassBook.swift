import CaucusCore
import CaucusStore
import Foundation

/// What the server remembers of the console's classes that their codes cannot say: whether a
/// class has opened or ended, and its host link's current generation. Kept in the session
/// store (`ConsoleClassStore`: a table in SQLite or PostgreSQL), so that every node sharing
/// the store knows every class and its current host link, and a restart or a node's death
/// forgets nothing: an ended class's links still say it ended and a replaced host link stays
/// refused. Each change is one atomic step of the store, whichever node makes it. The running
/// session a class is, is the store's business too: it carries the class id as its
/// `session_key`, saved with the session's first event.
///
/// A class is `opened` when made (`POST /console/class`) or when a host link the server has not
/// seen (`caucus link`) is first used, `started` once its host was given a token, and
/// `ended` once it is seen to be over: its session gone or another class running under its
/// name. Records older than a code's lifetime are dropped: their codes have expired.
final class ConsoleClassBook: Sendable {
    typealias Record = ConsoleClassRecord

    /// What a class's name is doing now, as the registry sees it.
    enum Running: Equatable, Sendable {
        case nothing
        case thisClass
        case anotherSession
    }

    enum Standing: Equatable, Sendable {
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

    /// How long a record is kept: its codes' lifetime and an opening's.
    static let keptMilliseconds = Int64(ConsoleClassCodes.lifetimeSeconds) * 1000 + openingMilliseconds

    private let store: any ConsoleClassStore

    init(store: any ConsoleClassStore) {
        self.store = store
    }

    func record(_ id: String) async throws(CaucusError) -> Record? {
        try await asking { try await self.store.consoleClass(id) }
    }

    /// A new class `id` of `session`: refused (1021) while a class of the name runs or is opening;
    /// a class of the name that was made and never opened gives way (it ends).
    func open(_ id: String, app: String, session: String, running: Running, at now: Instant) async throws(CaucusError) -> Record {
        if running != .nothing { throw Self.nameTaken(session) }
        try await asking { try await self.store.forgetConsoleClasses(createdBefore: now.milliseconds - Self.keptMilliseconds) }
        let made: Record? = try await change(id, app: app, session: session) { records in
            var given: [String] = []
            for (id, record) in records where record.app == app && SessionName.matches(record.session, session) {
                switch Self.standing(of: record, running: .nothing, at: now).standing {
                case .ended: given.append(id)
                case .notOpen where record.state == .opened: given.append(id)
                default: return nil
                }
            }
            // A class id is new: one already recorded (under any name) is never made again.
            guard records[id] == nil else { return nil }
            for id in given { records[id]?.state = .ended }
            let record = Record(app: app, session: session, id: id, state: .opened, hostGeneration: 0, createdAt: now.milliseconds)
            records[record.id] = record
            return record
        }
        guard let made else { throw Self.nameTaken(session) }
        return made
    }

    /// Where class `id` stands, noting what it learns (seen running, ended). A class this
    /// server never recorded (a `caucus link` host link not used yet) is recorded as opened
    /// when `adopt` says so (its host is asking).
    func standing(
        of id: String, app: String, session: String, running: Running, adopt: Bool, at now: Instant
    ) async throws(CaucusError) -> (standing: Standing, record: Record?) {
        try await change(id, app: app, session: session) { (records: inout [String: Record]) -> (Standing, Record?) in
            guard let known = records[id] ?? (adopt ? Self.adopted(id, app: app, session: session, at: now) : nil) else {
                return running == .nothing ? (Standing.notOpen, nil) : (running == .thisClass ? .running : .nameTaken, nil)
            }
            let (standing, updated) = Self.standing(of: known, running: running, at: now)
            records[id] = updated
            return (standing, updated)
        }
    }

    /// The class's host was given a token to open it.
    func started(_ id: String, app: String, session: String, at now: Instant) async throws(CaucusError) {
        try await change(id, app: app, session: session) { records in
            guard records[id]?.state == .opened || records[id]?.state == .started else { return }
            records[id]?.state = .started
            records[id]?.startedAt = now.milliseconds
        }
    }

    /// The class's record with its next host link generation (the host replaced its link); nil
    /// if the class is unknown or ended. Atomic on every node: the link it replaces is refused by
    /// all from the moment it returns.
    func replaceHostLink(of id: String, app: String, session: String) async throws(CaucusError) -> Record? {
        try await change(id, app: app, session: session) { (records: inout [String: Record]) -> Record? in
            guard records[id] != nil, records[id]?.state != .ended else { return nil }
            records[id]?.hostGeneration += 1
            return records[id]
        }
    }

    /// How long a host code made now for `record`'s class may live: until the record's own end
    /// (a code's lifetime from its making), never past it. The record is what refuses a replaced
    /// link; once it is dropped, a replaced link whose code outlived it would open the class again.
    static func hostCodeLifetime(of record: Record, at now: Instant) -> Int {
        let end = record.createdAt + Int64(ConsoleClassCodes.lifetimeSeconds) * 1000
        return Int(max(1, (end - now.milliseconds) / 1000))
    }

    private static func adopted(_ id: String, app: String, session: String, at now: Instant) -> Record {
        Record(app: app, session: session, id: id, state: .opened, hostGeneration: 0, createdAt: now.milliseconds)
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

    /// Changes the records of class `id` and of `session`'s name in one step of the store.
    private func change<Result: Sendable>(
        _ id: String, app: String, session: String, _ body: @escaping @Sendable (inout [String: Record]) -> Result
    ) async throws(CaucusError) -> Result {
        try await asking { try await self.store.changeConsoleClasses(id: id, app: app, nameKey: SessionName.key(session), body) }
    }

    /// A store that fails leaves the book as it was: the request is refused, and may be tried again.
    private func asking<Result: Sendable>(_ call: () async throws -> Result) async throws(CaucusError) -> Result {
        do {
            return try await call()
        } catch {
            throw CaucusError(.internalError, "The class book could not be read or written (\(error)): try again.")
        }
    }
}
