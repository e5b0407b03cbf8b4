import CaucusRecording
import Foundation
import NIOConcurrencyHelpers

/// How many bytes of recordings each app may keep in this server's data folder
/// (`--recording-quota`), shared by every media loop. An app's use is measured once from the
/// folder (every session whose `session.json` names it), then counted as files are written;
/// a deletion through the control API has it measured again at once. Without a limit it counts nothing.
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

    /// `app`'s recordings changed on disk (deleted): measured again at once. Not left to be
    /// measured when next needed: a recording going on counts its next bytes at once
    /// (``add(_:app:)``), which would then count from nothing, and every byte left on disk
    /// would drop out of the quota for good. Blocks on the folder's listing: call it off the
    /// session actors' threads (the control API runs it on NIO's thread pool).
    func measureAgain(app: String, layout: RecordingLayout) {
        guard limit != nil else { return }
        // Bytes written while the folder is walked are either in the walk (written before
        // their file's size is read) or lost to the quota: at most a batch's worth.
        let measured = Self.measure(app: app, layout: layout)
        used.withLockedValue { $0[app] = measured }
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
