import CaucusAuth
import CaucusCore
import CaucusRecording
import Foundation
import Hummingbird
import HummingbirdCore
import NIOPosix

/// The control API's recordings routes (docs/recording.md, "Getting them"): a session's
/// recordings listed, each file served with HTTP Range, and deleted, all from this node's
/// data folder (``RecordingLayout``). An app reaches its own sessions' recordings only, also
/// after the session has ended (`session.json` says whose they are).
extension SessionServer {
    var recordingLayout: RecordingLayout { RecordingLayout(dataDirectory: configuration.dataDirectory) }

    /// `GET /v1/sessions/{id}/recordings[?limit=N&after=CURSOR]`: one page of the listing
    /// (``RecordingsPage``), up to `limit` files (1–1000, 1000 when absent) after `after`
    /// (the `next` of the page before).
    func listRecordings(_ request: HummingbirdCore.Request, _ context: BasicRequestContext, _ app: AppCredentials) async throws -> Response {
        // As the OpenAPI document says; anything else is refused, not clamped or ignored.
        let limit = try Self.limit(of: request, in: RecordingsListPage.limits, absent: RecordingsListPage.limits.upperBound)
        let after = try request.uri.queryParameters.get("after").map { given in
            guard let cursor = RecordingsCursor(given) else {
                throw CaucusError(.invalidArguments, "after must be the next of a page of this listing, as it was given.")
            }
            return cursor
        }
        let session = try await recordingsSession(context, app)
        let layout = recordingLayout
        // The folders and timelines are read on NIO's thread pool: a large session's, or one on
        // a slow shared disk, would otherwise hold one of the threads every session runs on.
        let listing = try await NIOThreadPool.singleton.runIfActive {
            Self.listing(of: session, in: layout, page: RecordingsListPage(limit: limit, after: after))
        }
        return Self.json(listing)
    }

    private typealias RecordingsListPage = RecordingsPage<RecordingSummary, TimelineSummary>

    private static func listing(of session: Int64, in layout: RecordingLayout, page: RecordingsListPage) -> RecordingsListing {
        var page = page
        for location in layout.locations(of: session) where page.wants(location) {
            let folder = layout.locationFolder(session: session, location: location)
            // Lenient: a line a crash or a full disk spoilt costs that line, not the listing.
            guard let read = try? RecordedLocation.read(folder: folder, strict: false) else { continue }
            let base = "/v1/sessions/\(session)/recordings/\(location.name)/"
            let timeline = read.timelineBytes.map { bytes in
                TimelineSummary(location: location.name, file: RecordingLayout.timelineFileName, size: bytes, url: base + RecordingLayout.timelineFileName)
            }
            let files = read.files.map { file in
                // A damaged timeline's numbers may not add up: no time rather than a trap.
                let startedAt = file.start.flatMap { start in
                    read.wallClock.flatMap { wallClock in
                        let (sum, overflow) = wallClock.addingReportingOverflow(start)
                        return overflow ? nil : sum
                    }
                }
                let summary = RecordingSummary(
                    location: location.name, file: file.name, user: file.user, kind: file.kind?.rawValue, codec: file.codec,
                    start: file.start, startedAt: startedAt, duration: file.durationMilliseconds, size: file.bytes, ended: file.ended,
                    url: base + file.name)
                return (place: RecordingsCursor(location: location, start: file.start, file: file.name), file: summary)
            }
            page.add(location, files: files, timeline: timeline)
        }
        return RecordingsListing(session: session, recordings: page.files, timelines: page.timelines, next: page.next?.text)
    }

    /// `GET /v1/sessions/{id}/recordings/{location}/{file}`: the file, streamed from disk,
    /// whole (200) or one byte range (206); 416 for a range past its end.
    func recordingFile(_ request: HummingbirdCore.Request, _ context: BasicRequestContext, _ app: AppCredentials) async throws -> Response {
        let session = try await recordingsSession(context, app)
        let location = try Self.recordingLocation(context)
        guard let name = context.parameters.get("file"), RecordingLayout.isFileName(name) else {
            throw CaucusError(.invalidArguments, "The file must be timeline.jsonl or a recording's .webm or .mkv name (letters, digits, _ and -).")
        }
        guard let path = recordingLayout.regularFile(session: session, location: location, name: name),
            let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
        else { throw CaucusError(.notFound, "No file \(name) in the recordings of \(location.name).") }
        var headers: HTTPFields = [.contentType: Self.contentType(of: name), .acceptRanges: "bytes"]
        let range: ClosedRange<Int64>
        let status: HTTPResponse.Status
        switch ByteRangeRequest(header: request.headers[.range], size: size) {
        case .whole:
            guard size > 0 else { return Response(status: .ok, headers: headers, body: ResponseBody()) }
            (range, status) = (0...(size - 1), .ok)
        case .part(let part):
            (range, status) = (part, .partialContent)
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        case .unsatisfiable:
            var refusal = Self.failure(CaucusError(.invalidArguments, "The range asked lies past the file's end (\(size) bytes)."), status: nil)
            refusal.status = .rangeNotSatisfiable
            refusal.headers[.contentRange] = "bytes */\(size)"
            refusal.headers[.acceptRanges] = "bytes"
            return refusal
        }
        // Read in chunks as the client takes them: never the whole file in memory.
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
        } catch let error as HTTPError where error.status == .notFound {
            // Deleted between the look above and the open: as if it had never been there.
            throw CaucusError(.notFound, "No file \(name) in the recordings of \(location.name).")
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// `DELETE /v1/sessions/{id}/recordings` (every location) and
    /// `DELETE /v1/sessions/{id}/recordings/{location}` (one).
    func deleteRecordings(_ context: BasicRequestContext, _ app: AppCredentials, oneLocation: Bool) async throws -> Response {
        let session = try await recordingsSession(context, app)
        let layout = recordingLayout
        let locations: [RecordingLocation]
        if oneLocation {
            let location = try Self.recordingLocation(context)
            // The session's folder too must be a real one: a link planted there is never followed.
            guard RecordingLayout.isRealFolder(layout.sessionFolder(session)),
                RecordingLayout.isRealFolder(layout.locationFolder(session: session, location: location))
            else {
                throw CaucusError(.notFound, "No recordings of \(location.name) in this session.")
            }
            locations = [location]
        } else {
            locations = layout.locations(of: session)
        }
        // Files still being written would be lost with their folder: stop recording first.
        if let refusal = try await deletionRefusal(session, app, of: locations, oneLocation: oneLocation) {
            var refused = Self.failure(CaucusError(.alreadyRecording, refusal), status: nil)
            refused.status = .conflict
            return refused
        }
        let quota = media.recording.quota
        let logger = logger
        // Removed, and the app's use measured again, on NIO's thread pool: a large folder (or a
        // slow shared disk) would otherwise hold one of the threads every session runs on.
        let deleted = try await NIOThreadPool.singleton.runIfActive { () throws(CaucusError) -> [String] in
            defer { quota.measureAgain(app: app.key, layout: layout) }
            var deleted: [String] = []
            let manager = FileManager.default
            let sessionFolder = layout.sessionFolder(session)
            // What an earlier deletion moved aside and could not remove goes first.
            for name in (try? manager.contentsOfDirectory(atPath: sessionFolder)) ?? [] where name.hasPrefix(Self.deletingPrefix) {
                try? manager.removeItem(atPath: sessionFolder + "/" + name)
            }
            for location in locations {
                // Moved aside in one step, then removed: a recording of the location that starts
                // meanwhile (the host pressed Record) makes a folder of its own, and is never
                // written into one half deleted. Links are moved and removed themselves, never
                // what they point to.
                let aside = sessionFolder + "/" + Self.deletingPrefix + location.name + "-" + UUID().uuidString
                do {
                    try manager.moveItem(atPath: layout.locationFolder(session: session, location: location), toPath: aside)
                    deleted.append(location.name)
                    try manager.removeItem(atPath: aside)
                } catch {
                    logger.error("deleting the recordings of session \(session) \(location.name) failed: \(error)")
                    throw CaucusError.serverFailure
                }
            }
            return deleted
        }
        return Self.json(RecordingsDeletion(session: session, deleted: deleted))
    }

    /// The names a deletion moves a location's folder to before removing it (never a
    /// location's name, so never listed or served).
    static let deletingPrefix = ".deleting-"

    /// Why `locations` of the session (any of its locations, unless `oneLocation`) may not be
    /// deleted now: the session, live here, records one of them; or it is live on another node,
    /// which may be writing into this folder (a shared one) and whose recording this node
    /// cannot see. nil: nothing of it is being written.
    private func deletionRefusal(
        _ session: Int64, _ app: AppCredentials, of locations: [RecordingLocation], oneLocation: Bool
    ) async throws -> String? {
        switch try await placement(of: session) {
        case .here(let live) where live.app == app.key:
            let recorded = Set(await live.state.recordedLocations.map(SessionActor.recordingLocation))
            guard let busy = oneLocation ? locations.first(where: recorded.contains) : recorded.sorted().first else { return nil }
            return "\(busy.name) is being recorded: stop recording it before deleting its recordings."
        case .elsewhere(let node):
            return "Session \(session) is live on node \(node), which may be recording it into this folder: "
                + "delete its recordings there, or once it has ended."
        case .here, nil:
            return nil
        }
    }

    /// The session the path names, when this app may reach its recordings: its `session.json`
    /// names the app, or (nothing recorded yet) it is the app's live session here. Any other
    /// session, another app's included, is answered as if it did not exist.
    private func recordingsSession(_ context: BasicRequestContext, _ app: AppCredentials) async throws -> Int64 {
        let missing = CaucusError(.notFound, "No session with that id in this app has recordings here.")
        guard let session = context.parameters.get("id", as: Int64.self), session > 0 else { throw missing }
        let record: RecordingSessionRecord?
        do {
            record = try recordingLayout.record(of: session)
        } catch {
            logger.error("recordings of session \(session): \(error)")
            throw CaucusError.serverFailure
        }
        if let record {
            guard record.app == app.key, record.session == session else { throw missing }
            return session
        }
        guard await registry.sessions(of: app.key).contains(where: { $0.id.rawValue == session }) else { throw missing }
        return session
    }

    private static func recordingLocation(_ context: BasicRequestContext) throws -> RecordingLocation {
        guard let location = context.parameters.get("location").flatMap(RecordingLocation.init(name:)) else {
            throw CaucusError(.invalidArguments, "The location must be main or room-<id>.")
        }
        return location
    }

    private static func contentType(of name: String) -> String {
        if name == RecordingLayout.timelineFileName { return "application/jsonl" }
        if name.hasSuffix(".mkv") { return "video/x-matroska" }  // H.264 video: audio is always WebM
        return RecordingLayout.kind(ofFileName: name) == .audio ? "audio/webm" : "video/webm"
    }
}

/// `GET /v1/sessions/{id}/recordings`.
struct RecordingsListing: Encodable {
    let session: Int64
    let recordings: [RecordingSummary]
    let timelines: [TimelineSummary]
    /// The `after` of the next page; absent on the listing's last page.
    let next: String?
}

/// One recorded file. Absent fields: the timeline does not name the file (a crash between
/// the file and its line) or, for `duration`, neither it nor the file's header says.
struct RecordingSummary: Encodable {
    let location: String
    let file: String
    let user: String?
    let kind: String?
    let codec: String?
    /// Milliseconds on the location's clock (the timeline's `fileStarted` `t`).
    let start: Int64?
    /// Unix milliseconds: the timeline's `wallClock` plus `start`.
    let startedAt: Int64?
    /// Milliseconds.
    let duration: Int64?
    let size: Int64
    let ended: Bool
    let url: String
}

struct TimelineSummary: Encodable {
    let location: String
    let file: String
    let size: Int64
    let url: String
}

struct RecordingsDeletion: Encodable {
    let session: Int64
    let deleted: [String]
}
