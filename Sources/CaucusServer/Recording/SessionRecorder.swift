import CaucusCore
import CaucusRecording
import CaucusSFU
import Logging

/// What a session tells its media loop about recording, after events that may change it: whose
/// recordings these are, and the session as the roster needs it (`RecordingRoster.Picture`).
struct RecordingHandover: Sendable {
    let record: RecordingSessionRecord
    let picture: RecordingRoster.Picture
    /// Unix milliseconds now, on the session's clock: a new timeline's 0.
    let wallClock: Int64
}

/// A recorded user as the packet path needs it: the recording of its location (one reference
/// to follow per packet, no lookup by location name; the location is the recording's) and the
/// kinds it publishes. Nothing else: each packet copies it out of ``SessionRecorder``'s array.
struct RecordedPublisher {
    let recording: LocationRecording
    private let kinds: UInt8

    init(recording: LocationRecording, publishing: Set<TimelineEvent.MediaKind>) {
        self.recording = recording
        kinds = (publishing.contains(.audio) ? 1 : 0) | (publishing.contains(.video) ? 2 : 0) | (publishing.contains(.screen) ? 4 : 0)
    }

    func publishes(_ kind: StreamKind) -> Bool {
        switch kind {
        case .audio: kinds & 1 != 0
        case .video: kinds & 2 != 0
        case .screenShare: kinds & 4 != 0
        }
    }
}

extension RecordingLocation {
    /// The session's name for this location.
    var sessionLocation: Location {
        switch self {
        case .main: .main
        case .room(let id): .room(RoomID(id))
        }
    }
}

/// One session's recording, written on the ``RecordingWriter``: the roster says which locations
/// and publishers are recorded, each recorded location writes its own files
/// (``LocationRecording``), and what the forwarding engine handed over for recorded publishers
/// (in batches, through the session's ``RecordingFeed``) goes to the location each is in.
/// A location whose files cannot be written (a full disk, the app's quota used up) is stopped
/// here at once, its files left playable; the failure waits in ``takeFailures()`` for the
/// session, which stops recording it for everyone with the reason. Confined to the writer.
final class SessionRecorder {
    struct Failure: Sendable, Hashable {
        let locations: [RecordingLocation]
        let reason: RecordingStopReason
    }

    private var roster = RecordingRoster()
    /// Where each recorded user is, the recording its media goes to, and what it publishes, as
    /// the packet path reads it. A user whose location is not being recorded (never started,
    /// or stopped on a failure) has no entry.
    private var recorded: [Int: RecordedPublisher] = [:] {
        didSet {
            var dense = ContiguousArray<RecordedPublisher?>(repeating: nil, count: (recorded.keys.max() ?? -1) + 1)
            for (user, publisher) in recorded where user >= 0 { dense[user] = publisher }
            recordedByUser = dense
        }
    }
    /// ``recorded`` by user number, for the packet path (no hashing).
    private var recordedByUser: ContiguousArray<RecordedPublisher?> = []
    private var record: RecordingSessionRecord?
    private var locations: [RecordingLocation: LocationRecording] = [:]
    private var failures: [Failure] = []
    private var keyframesWanted: [PublishedStream] = []
    /// The recorded publishers' latest sender reports, by SSRC, with when they came: handed to
    /// the location a publisher is recorded in next (a move), whose clock has none of its
    /// tracks and might wait seconds for the next (Chromium's audio: one every 2.5–7.5 s).
    private var senderReports: [UInt32: (report: ForwardingEngine.RecordedSenderReport, arrival: Duration)] = [:]
    private let layout: RecordingLayout
    private let quota: RecordingQuota
    private let logger: Logger

    init(layout: RecordingLayout, quota: RecordingQuota, logger: Logger) {
        self.layout = layout
        self.quota = quota
        self.logger = logger
    }

    /// The session's latest picture: locations started and stopped, publishers recorded or
    /// finished, timeline lines written.
    func update(_ handover: RecordingHandover, now: Duration) {
        record = handover.record
        for change in roster.update(handover.picture) {
            switch change {
            case .startLocation(let location):
                start(location, wallClock: handover.wallClock, now: now)
            case .recordPublisher(let user, let location):
                guard let recording = locations[location] else { continue }
                recording.record(user)
                for (_, last) in senderReports.sorted(by: { $0.key < $1.key }) where last.report.stream.publisher == user {
                    recording.receive(last.report, at: last.arrival)
                }
            case .stopPublisher(let user, let location):
                attempt(location) { (recording) throws(RecordingFileError) in try recording.finish(user, at: now) }
            case .timeline(let location, let what):
                attempt(location) { (recording) throws(RecordingFileError) in try recording.note(what, at: now) }
            case .stopLocation(let location):
                guard let recording = locations.removeValue(forKey: location) else { continue }
                do { try recording.stop(reason: "stopped", at: now) } catch { note(error, stopping: location) }
                account(recording)
            }
        }
        // Built aside and assigned once: each assignment rebuilds ``recordedByUser``.
        var next: [Int: RecordedPublisher] = [:]
        for (user, person) in roster.picture.people {
            guard let recording = locations[person.location] else { continue }
            next[user] = RecordedPublisher(recording: recording, publishing: person.publishing)
        }
        recorded = next
        senderReports = senderReports.filter { recorded[$0.value.report.stream.publisher] != nil }
    }

    /// Writes a batch of what the engine handed over, in the order it came.
    func write(_ batch: RecordedBatch) {
        batch.forEach { media, arrival in write(media, arrival: arrival) }
    }

    /// Writes one packet or report the engine handed over for a recorded publisher, which
    /// arrived at `now`.
    func write(_ media: RecordedBatch.Media, arrival now: Duration) {
        switch media {
        case .rtp(let stream, let codec, _, let datagram):
            // Only what the user publishes: a client that goes on sending a kind it stopped
            // publishing (a mute) is not forwarded, and must not be recorded either.
            let user = stream.publisher
            guard user >= 0, user < recordedByUser.count, let publisher = recordedByUser[user], publisher.publishes(stream.kind) else { return }
            let recording = publisher.recording
            attempt(recording) { (recording) throws(RecordingFileError) in
                try recording.receive(datagram, of: stream, codec: codec, at: now)
            }
            account(recording)
        case .senderReport(let report):
            guard let publisher = recorded[report.stream.publisher] else { return }
            senderReports[report.report.ssrc] = (report, now)
            publisher.recording.receive(report, at: now)
        }
    }

    /// A location's new speaker order: a new loudest speaker is a `spoke` line.
    func speakers(_ order: [Int], in location: RecordingLocation, now: Duration) {
        guard let recording = locations[location], let loudest = order.first, loudest != recording.loudest else { return }
        recording.loudest = loudest
        attempt(location) { (recording) throws(RecordingFileError) in try recording.note(.spoke(user: RecordingRoster.userName(loudest)), at: now) }
    }

    /// Keyframes the recorders wait for, for the engine to ask the publishers (gathered as
    /// each location asks: the feed takes them after every job).
    func takeKeyframesWanted() -> [PublishedStream] {
        guard !keyframesWanted.isEmpty else { return [] }
        defer { keyframesWanted.removeAll(keepingCapacity: true) }
        return keyframesWanted
    }

    func takeFailures() -> [Failure] {
        defer { failures.removeAll() }
        return failures
    }

    /// The session ended (or its media loop closes): every location's files end.
    func stopAll(reason: String, now: Duration) {
        // Emptied first: the bytes of these last writes are counted with none left to stop.
        let stopping = locations.sorted(by: { $0.key < $1.key })
        locations.removeAll()
        recorded.removeAll()
        senderReports.removeAll()
        for (location, recording) in stopping {
            do { try recording.stop(reason: reason, at: now) } catch { note(error, stopping: location) }
            account(recording)
        }
    }

    private func start(_ location: RecordingLocation, wallClock: Int64, now: Duration) {
        guard let record else { return }
        guard quota.allows(app: record.app, layout: layout) else {
            fail([location], .quotaExceeded)
            return
        }
        do {
            locations[location] = try LocationRecording(location, of: record, layout: layout, now: now, wallClock: wallClock)
        } catch let error as RecordingFileError {
            fail([location], Self.reason(error))
        } catch {
            logger.error("Recording cannot start.", metadata: ["location": "\(location.name)", "error": "\(error)"])
            fail([location], .writeFailed)
        }
    }

    /// Runs `body` on `location`'s recording; a file error stops the location.
    private func attempt(_ location: RecordingLocation, _ body: (LocationRecording) throws(RecordingFileError) -> Void) {
        guard let recording = locations[location] else { return }
        attempt(recording, body)
    }

    /// The same, with the location's recording already at hand (the packet path's one lookup).
    private func attempt(_ recording: LocationRecording, _ body: (LocationRecording) throws(RecordingFileError) -> Void) {
        do throws(RecordingFileError) {
            try body(recording)
            if recording.wantsKeyframes { keyframesWanted += recording.takeKeyframesWanted() }
        } catch {
            let location = recording.location
            locations[location] = nil
            recorded = recorded.filter { $0.value.recording !== recording }
            try? recording.stop(reason: Self.reason(error).rawValue, at: MediaClock.now())
            account(recording)
            logger.error("Recording stopped: a file cannot be written.", metadata: ["location": "\(location.name)", "error": "\(error)"])
            fail([location], Self.reason(error))
        }
    }

    /// Counts what `recording` wrote against the app's quota; past it, every location stops.
    private func account(_ recording: LocationRecording) {
        // Most packets complete no cluster: nothing to count, and the record is not copied.
        let written = recording.takeBytesWritten()
        guard written > 0, let record, !quota.add(written, app: record.app), !locations.isEmpty else { return }
        let stopping = locations.keys.sorted()
        stopAll(reason: RecordingStopReason.quotaExceeded.rawValue, now: MediaClock.now())
        fail(stopping, .quotaExceeded)
    }

    private func fail(_ stopped: [RecordingLocation], _ reason: RecordingStopReason) {
        failures.append(Failure(locations: stopped, reason: reason))
    }

    private func note(_ error: any Error, stopping location: RecordingLocation) {
        logger.warning("A recording's last writes failed as it stopped.", metadata: ["location": "\(location.name)", "error": "\(error)"])
    }

    static func reason(_ error: RecordingFileError) -> RecordingStopReason {
        error.code == .diskFull ? .diskFull : .writeFailed
    }
}
