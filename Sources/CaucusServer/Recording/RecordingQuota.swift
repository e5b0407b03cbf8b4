import CaucusRecording
import Foundation
import NIOConcurrencyHelpers

/// How many bytes of recordings each app may keep in this server's data folder
/// (`--recording-quota`), shared by every media loop. An app's use is measured once from the
/// folder (every session whose `session.json` names it), then counted as files are written;
/// a deletion through the control API has it measured again. Without a limit it counts nothing.
final class RecordingQuota: Sendable {
    /// Bytes per app; nil: no limit.
    let limit: Int64?
    private let used = NIOLockedValueBox<[String: Int64]>([:])

    init(limit: Int64?) {
        self.limit = limit
    }

    /// Whether `app` may start recording: its use is under the limit.
    func allows(app: String, layout: RecordingLayout) -> Bool {
        guard let limit else { return true }
        return usage(of: app, layout: layout) < limit
    }

    /// Counts `bytes` written for `app`; false once its use has passed the limit.
    func add(_ bytes: Int, app: String) -> Bool {
        guard let limit else { return true }
        return used.withLockedValue { used in
            let total = (used[app] ?? 0) + Int64(bytes)
            used[app] = total
            return total <= limit
        }
    }

    /// `app`'s recordings changed on disk (deleted): measured again when next needed.
    func forget(app: String) {
        used.withLockedValue { $0[app] = nil }
    }

    /// The bytes `app` keeps now, measured from the folder the first time.
    func usage(of app: String, layout: RecordingLayout) -> Int64 {
        if let known = used.withLockedValue({ $0[app] }) { return known }
        let measured = Self.measure(app: app, layout: layout)
        return used.withLockedValue { used in
            if let known = used[app] { return known }
            used[app] = measured
            return measured
        }
    }

    /// Every file's size under the sessions whose record names `app`.
    static func measure(app: String, layout: RecordingLayout) -> Int64 {
        let manager = FileManager.default
        let sessions = (try? manager.contentsOfDirectory(atPath: layout.root)) ?? []
        var total: Int64 = 0
        for name in sessions {
            guard let session = Int64(name), (try? layout.record(of: session))?.app == app else { continue }
            for location in layout.locations(of: session) {
                let folder = layout.locationFolder(session: session, location: location)
                for file in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] {
                    let size = (try? manager.attributesOfItem(atPath: folder + "/" + file)[.size] as? NSNumber)?.int64Value ?? 0
                    total += size
                }
            }
        }
        return total
    }
}
