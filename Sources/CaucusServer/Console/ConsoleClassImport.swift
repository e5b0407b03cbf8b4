import CaucusCore
import CaucusStore
import Foundation
import Logging

/// The class book older servers kept in the data folder (`console-classes.json`), brought into
/// the session store once, at the first start that finds it, then renamed aside
/// (`console-classes.json.imported`): its classes' links keep working, its ended classes stay
/// ended and its replaced host links refused. A class the store already holds (another node
/// imported its own file first, or adopted the same `caucus link` class) is merged: the later
/// host link generation, ended if either says so.
enum ConsoleClassImport {
    static let fileName = "console-classes.json"
    static let importedSuffix = ".imported"
    static let unreadableSuffix = ".unreadable"

    /// Imports `<dataDirectory>/console-classes.json` into `store`, if the file is there, and
    /// renames it aside; returns how many classes it held that were not expired. A file that
    /// does not decode is renamed `.unreadable` and nothing is imported (the server did the
    /// same before: it started with an empty book). A store that fails leaves the file in
    /// place for the next start, and the start fails.
    @discardableResult
    static func run(dataDirectory: String, into store: any ConsoleClassStore, now: Instant, logger: Logger) async throws -> Int {
        let path = dataDirectory + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        guard let records = try? JSONDecoder().decode([ConsoleClassRecord].self, from: data) else {
            logger.warning("The console's class book does not decode: renamed aside, not imported", metadata: ["path": "\(path)"])
            try? FileManager.default.moveItem(atPath: path, toPath: path + unreadableSuffix)
            return 0
        }
        let oldest = now.milliseconds - ConsoleClassBook.keptMilliseconds
        let kept = records.filter { $0.createdAt >= oldest && ConsoleClassCodes.isClassID($0.id) }
        for record in kept {
            try await store.changeConsoleClasses(id: record.id, app: record.app, nameKey: record.nameKey) { records in
                records[record.id] = merged(record, into: records[record.id])
            }
        }
        do {
            let aside = path + importedSuffix
            try? FileManager.default.removeItem(atPath: aside)
            try FileManager.default.moveItem(atPath: path, toPath: aside)
        } catch {
            // Imported again at the next start, which merges to the same records.
            logger.warning("The console's class book was imported but could not be renamed aside", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        logger.info("Imported the console's class book into the session store", metadata: ["classes": "\(kept.count)", "path": "\(path)"])
        return kept.count
    }

    /// `record` from the file, merged with the store's record of the same class if any.
    static func merged(_ record: ConsoleClassRecord, into stored: ConsoleClassRecord?) -> ConsoleClassRecord {
        guard var stored, stored.app == record.app, stored.session == record.session, stored.createdAt == record.createdAt else {
            return stored ?? record
        }
        stored.hostGeneration = max(stored.hostGeneration, record.hostGeneration)
        stored.seenRunning = stored.seenRunning || record.seenRunning
        if record.state == .ended || stored.state == .ended {
            stored.state = .ended
        } else if record.state == .started || stored.state == .started {
            stored.state = .started
            stored.startedAt = [stored.startedAt, record.startedAt].compactMap { $0 }.max()
        }
        return stored
    }
}
