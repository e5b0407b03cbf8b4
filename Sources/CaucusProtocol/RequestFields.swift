import CaucusCore
import CaucusJSONSyntax

/// Every argument any operation takes, all optional: JSON decoding checks their types, and
/// `request(for:)` checks that an operation has the ones it needs. Clients encode the same
/// struct, so the argument names are written once.
public struct RequestFields: Codable, Sendable {
    public var id: Int?
    public var op: String?
    public var session: String?
    public var userName: String?
    public var token: String?
    public var password: String?
    /// The protocol version a `join` or `resume` speaks; absent means 1.
    public var `protocol`: Int?
    public var secret: String?
    public var lastSeq: Int?
    /// `ping`: the seq after which the client counts the events it received.
    public var after: Int?
    public var endSession: Bool?
    public var user: UserID?
    public var users: [UserID]?
    public var name: String?
    public var names: [String]?
    /// A room's new name (`renamePlannedRoom`, `renameRoom`).
    public var newName: String?
    public var mode: SessionMode?
    public var settings: SettingsChange?
    public var durationSeconds: Int?
    public var autoAssign: Bool?
    public var autoMove: Bool?
    public var countdownSeconds: Int?
    public var text: String?
    public var seconds: Int?
    public var room: RoomID?
    public var request: HelpRequestID?
    public var answer: HelpAnswer?
    public var definition: RoomDefinition?
    public var count: Int?
    public var forceJoin: Bool?
    public var audio: Bool?
    public var video: Bool?
    public var to: UserID?
    /// What `publish` publishes, or what `muteUser` turns off: media kinds, each at most once.
    public var media: [MediaKind]?
    /// A WebRTC offer's session description (`mediaOffer`).
    public var sdp: String?
    /// The offer's video sections that carry screen share rather than camera video (`mediaOffer`).
    public var screenShareMids: [String]?
    /// The client's own name for this command (`chat` only), so that it can be sent again
    /// safely when its outcome was lost with the connection: see `RequestKey`.
    public var requestKey: String?
    /// The locations `startRecording`/`stopRecording` name: room ids, `null` for the main session.
    public var locations: [Location]?
    /// `startRecording`: every room, now and created later; `stopRecording`: everything recorded.
    public var all: Bool?

    public init(_ operation: Operation) { op = operation.rawValue }

    /// The names of the fields a request may carry, read off the type itself so that a field
    /// added above is known here too.
    static let knownNames: Set<String> = Set(Mirror(reflecting: RequestFields(.ping)).children.compactMap(\.label))

    /// Whether a value found while checking a request's syntax is in a field the server reads
    /// (or is the request itself): one in an unknown field is ignored like the field.
    static func isKnown(_ place: JSONSyntax.Place) -> Bool {
        guard let key = place.topLevelKey else { return true }
        return knownNames.contains(key)
    }

    /// Whether a `null` found there is the main session in `locations` (`[null, 2]`): the one
    /// place a request takes a null, since a location is written so everywhere.
    static func namesMainSession(_ place: JSONSyntax.Place) -> Bool {
        let prefix = "locations["
        guard place.path.hasPrefix(prefix), place.path.hasSuffix("]") else { return false }
        let index = place.path.dropFirst(prefix.count).dropLast()
        return !index.isEmpty && index.allSatisfy(\.isASCII) && index.allSatisfy(\.isNumber)
    }

    private func required<Value>(_ value: Value?, _ name: String) throws(CaucusError) -> Value {
        guard let value else { throw CaucusError(.invalidArguments, "Missing \"\(name)\".") }
        return value
    }

    /// `media` as a set; naming a kind twice is a mistake, not a shorthand.
    private func publishedMedia() throws(CaucusError) -> MediaKinds {
        let kinds = try required(media, "media")
        guard Set(kinds).count == kinds.count else {
            throw CaucusError(.invalidArguments, "\"media\" names a kind twice.")
        }
        return MediaKinds(kinds)
    }

    /// `all: true` or `locations`, never both; the core checks the locations themselves.
    private func recordingTarget() throws(CaucusError) -> RecordingTarget {
        switch (all ?? false, locations) {
        case (true, nil): return .all
        case (false, let locations?): return .locations(locations)
        case (true, _?): throw CaucusError(.invalidRecordingTarget, "Give \"all\" or \"locations\", not both.")
        case (false, nil): throw CaucusError(.invalidRecordingTarget, "Missing \"locations\" (or \"all\": true).")
        }
    }

    func makeRequest() throws(CaucusError) -> Request {
        guard let op else { throw CaucusError(.invalidArguments, "Every request needs an \"op\".") }
        guard let operation = Operation(rawValue: op) else { throw CaucusError(.unknownOperation, "Unknown op \"\(op)\".") }
        return try request(for: operation)
    }

    func request(for operation: Operation) throws(CaucusError) -> Request {
        // Taken where the server keeps it; elsewhere a retry would not be as safe as it looks.
        if requestKey != nil && operation != .chat {
            throw CaucusError(.invalidArguments, "\"requestKey\" is taken by chat only, not by \(operation.rawValue).")
        }
        switch operation {
        case .join:
            try ProtocolVersion.check(self.protocol)
            return .join(
                JoinArguments(
                    session: try required(session, "session"), userName: try required(userName, "userName"),
                    token: try required(token, "token"), password: password))
        case .resume:
            try ProtocolVersion.check(self.protocol)
            return .resume(ResumeArguments(secret: try required(secret, "secret"), lastSeq: try required(lastSeq, "lastSeq")))
        case .ping:
            if let after, after < 0 { throw CaucusError(.invalidArguments, "\"after\" must be a seq: 0 or more.") }
            return .ping(after: after)
        case .getPreList: return .query(.getPreList)
        case .getCommittedList: return .query(.getCommittedList)
        case .isStarted: return .query(.isStarted)
        case .getSnapshot: return .query(.getSnapshot)
        case .updateSettings: return .updateSettings(try required(settings, "settings"))
        case .mediaOffer: return .mediaOffer(sdp: try required(sdp, "sdp"), screenShareMids: screenShareMids ?? [])
        case .getIceServers: return .iceServers
        default: return .command(try command(for: operation))
        }
    }

    private func command(for operation: Operation) throws(CaucusError) -> Command {
        switch operation {
        case .leave: return .leave(endSession: endSession ?? false)
        case .makeManager: return .makeManager(try required(user, "user"))
        case .revokeManager: return .revokeManager(try required(user, "user"))
        case .transferHost: return .transferHost(to: try required(user, "user"))
        case .rename: return .rename(try required(user, "user"), to: try required(name, "name"))
        case .remove: return .remove(try required(user, "user"))
        case .setMode: return .setMode(try required(mode, "mode"))
        case .addToPreList: return .addToPreList(try required(names, "names"))
        case .removeFromPreList: return .removeFromPreList(try required(names, "names"))
        case .clearPreList: return .clearPreList
        case .preAssign: return .preAssign(try required(users, "users"), to: try required(name, "name"))
        case .renamePlannedRoom:
            return .renamePlannedRoom(try required(name, "name"), to: try required(newName, "newName"))
        case .unassign: return .unassign(try required(users, "users"))
        case .commit: return .commit
        case .withdraw: return .withdraw
        case .start:
            return .start(StartOptions(durationSeconds: durationSeconds, autoAssign: autoAssign ?? false, autoMove: autoMove))
        case .stop: return .stop(countdownSeconds: countdownSeconds)
        case .broadcast: return .broadcast(try required(text, "text"))
        case .extendTimer: return .extendTimer(seconds: try required(seconds, "seconds"))
        case .joinRoom: return .joinRoom(try required(room, "room"))
        case .returnToMain, .disconnect: return .returnToMain
        case .assign: return .assign(try required(users, "users"), to: try required(room, "room"))
        case .returnUser: return .returnUser(try required(user, "user"))
        case .autoAssign: return .autoAssign
        case .returnEveryone, .clearAll: return .returnEveryone
        case .requestHelp: return .requestHelp
        case .answerHelp: return .answerHelp(try required(request, "request"), try required(answer, "answer"))
        case .createRooms: return .createRooms(definition ?? .standard, count: try required(count, "count"))
        case .createAndInvite:
            return .createAndInvite(definition ?? .standard, count: try required(count, "count"), forceJoin: forceJoin ?? false)
        case .invite: return .invite(try required(users, "users"), to: try required(room, "room"), forceJoin: forceJoin ?? false)
        case .acceptInvitation: return .acceptInvitation(try required(room, "room"))
        case .rejectInvitation: return .rejectInvitation(try required(room, "room"))
        case .pauseParent: return .pauseParent
        case .resumeParent: return .resumeParent
        case .muteParent: return .muteParent(audio: audio ?? true, video: video ?? true)
        case .unmuteParent: return .unmuteParent(audio: audio ?? true, video: video ?? true)
        case .destroyAll: return .destroyAll
        case .renameRoom: return .renameRoom(try required(room, "room"), to: try required(newName, "newName"))
        case .chat:
            let key = try requestKey.map { (text) throws(CaucusError) in try RequestKey(text) }
            return .chat(try required(text, "text"), to: to.map(ChatTarget.user) ?? .room, key: key)
        case .publish: return .publish(try publishedMedia())
        case .muteUser:
            let kinds = try publishedMedia()
            guard !kinds.isEmpty else { throw CaucusError(.invalidArguments, "\"media\" names no kind to mute.") }
            return .muteUser(try required(user, "user"), kinds)
        case .startVoiceBroadcast: return .startVoiceBroadcast
        case .stopVoiceBroadcast: return .stopVoiceBroadcast
        case .listenIn: return .listenIn(try required(room, "room"))
        case .stopListening: return .stopListening
        case .startRecording: return .startRecording(try recordingTarget())
        case .stopRecording: return .stopRecording(try recordingTarget())
        case .join, .resume, .ping, .getPreList, .getCommittedList, .isStarted, .getSnapshot, .updateSettings, .mediaOffer,
            .getIceServers:
            throw CaucusError(.unknownOperation, "\(operation.rawValue) is not a command.")
        }
    }
}
