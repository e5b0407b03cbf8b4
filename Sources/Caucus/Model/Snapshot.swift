import CaucusCore
import Foundation

extension CaucusSession {
    /// The session as this user sees it, at one moment. It is kept by applying every event the
    /// server sends with the server's own state machine, and it is updated before the event is
    /// delivered: when a call returns or an event arrives, the snapshot already shows it.
    ///
    /// A value: it does not change once made; `CaucusSession.snapshot` gives the current one.
    /// Two snapshots are equal when they show the same session state to the same user after
    /// the same event.
    public struct Snapshot: Sendable, Equatable {
        let model: LocalModel
        let engine: SessionEngine

        private var state: SessionState { model.state }

        /// The last event this snapshot includes.
        public var seq: Int { model.seq }
        public var sessionName: String { state.name }
        public var mode: SessionMode { state.mode }
        public var settings: SessionSettings { state.settings }
        public var limits: SessionLimits { state.limits }

        // MARK: - Users

        /// This user.
        public var myself: CaucusUser {
            model.myself ?? CaucusUser(id: model.me, name: "", role: .participant, isConnected: false, joinedAt: Date(timeIntervalSince1970: 0))
        }

        public var myRole: CaucusRole { myself.role }
        /// Everyone present (connected or holding their seat while reconnecting), in join order.
        public var users: [CaucusUser] { state.caucusUsers(Array(state.users.keys)) }
        /// Everyone but this user.
        public var remoteUsers: [CaucusUser] { users.filter { $0.id != model.me } }
        public var host: CaucusUser? { state.hostID.flatMap(state.caucusUser) }
        public var managers: [CaucusUser] { users.filter(\.isManager) }
        /// A present user, or one who left, as last seen.
        public func user(_ id: UserID) -> CaucusUser? { model.user(id) }
        /// The first present user with this name.
        public func user(named name: String) -> CaucusUser? { users.first { $0.name == name } }

        // MARK: - Subsessions

        public var status: SubsessionStatus { state.status }
        /// Subsessions are open (started, or stopping after a countdown).
        public var isStarted: Bool { state.isStarted }
        /// The committed list, with each subsession's users.
        public var subsessions: [SubsessionKit] { state.kits(engine: engine) }
        public func subsession(_ id: RoomID) -> SubsessionKit? { state.kit(id, engine: engine) }
        public func subsession(named name: String) -> SubsessionKit? { subsessions.first { $0.name == name } }
        /// Where this user is.
        public var location: CaucusLocation { myself.location }
        /// The subsession this user is in; nil in the main session.
        public var mySubsession: SubsessionKit? { location.roomID.flatMap(subsession) }
        /// The room this user is invited to and has not answered.
        public var invitation: SubsessionKit? { state.invitations[model.me].flatMap(subsession) }
        /// The running timer.
        public var timer: BreakoutTimer? { state.timer.map(BreakoutTimer.init) }
        /// When a stop's countdown ends and everyone returns.
        public var stopsAt: Date? {
            if case .stopping(let until) = state.phase { return Date(until) }
            return nil
        }
        /// Pause and mute of the parent (main) room.
        public var parent: ParentControl { state.parent }

        /// Who speaks to every room at once now, if anyone.
        public var voiceBroadcaster: CaucusUser? { state.voiceBroadcaster.flatMap(state.caucusUser) }

        /// Who listens in to `subsession` now.
        public func listeners(of subsession: RoomID) -> [CaucusUser] { state.caucusUsers(state.listeners(of: subsession)) }

        // MARK: - Recording

        /// Every location recorded now: the main session first, then subsessions.
        public var recordedLocations: [CaucusLocation] { state.recordedLocations }
        /// Every subsession is recorded, including those created later.
        public var recordsEverySubsession: Bool { state.recording.everyRoom }
        /// This user's location is recorded now: what an app must show its user.
        public var isRecordingMe: Bool { state.isRecorded(location) }
        public func isRecorded(_ location: CaucusLocation) -> Bool { state.isRecorded(location) }
        /// The last stop the server made on its own (a full disk, a quota): which locations and
        /// why. Nil when there was none since recording was last started or stopped.
        public var recordingStop: RecordingStop? { state.recording.stopped }

        // MARK: - What only some roles see

        /// The pre-list: empty unless this user is the host.
        public var preList: [PlannedRoom] { myRole == .host ? state.preList : [] }
        /// Help requests waiting for an answer: empty unless this user manages.
        public var helpRequests: [HelpRequestHandler] {
            myRole.isManaging ? state.helpRequests.map { HelpRequestHandler($0, engine: engine) } : []
        }

        public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
            lhs.model.me == rhs.model.me && lhs.model.seq == rhs.model.seq && lhs.model.state == rhs.model.state
        }
    }
}
