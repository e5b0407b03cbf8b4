import OrderedCollections

/// The whole state as the server's store keeps it in a snapshot: everything `decide` and
/// `apply` read, passwords, claims and the numbering of what comes next included, so that a
/// session rebuilt from a snapshot and the events after it is the one the whole log rebuilds
/// (`==`). Never sent to a client: a client gets `SessionSnapshot`, the view one user may see.
extension SessionState: Codable {
    private enum CodingKeys: String, CodingKey {
        case lifecycle, endReason, name, password, sessionKey, createdAt, limits, settings, mode, users, hostID, preList
        case phase, rooms, timer, parent, invitations, helpRequests
        case nextUserNumber, nextRoomNumber, nextHelpNumber, nextMessageNumber
        // Added with broadcast voice and listen-in: a state stored before them has neither.
        case voiceBroadcaster, listeners
        // Added with request keys: a state stored before them remembers none.
        case requestKeys
        // Added with removal barring a user's identity: a state stored before it bars none.
        case removedIdentities
        // Added with recording: a state stored before it records nothing.
        case recording
    }

    /// A user with what `SessionUser`'s own coding leaves out (it is the join event's form).
    private struct StoredUser: Codable {
        let user: SessionUser
        let publishing: MediaKinds
    }

    /// One user's remembered keyed commands.
    private struct StoredRequestKeys: Codable {
        let user: UserID
        let requests: [RememberedRequest]
    }

    private enum StoredLifecycle: String, Codable {
        case awaitingFirstJoin, live, ended
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch lifecycle {
        case .awaitingFirstJoin: try container.encode(StoredLifecycle.awaitingFirstJoin, forKey: .lifecycle)
        case .live: try container.encode(StoredLifecycle.live, forKey: .lifecycle)
        case .ended(let reason):
            try container.encode(StoredLifecycle.ended, forKey: .lifecycle)
            try container.encode(reason, forKey: .endReason)
        }
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(password, forKey: .password)
        try container.encodeIfPresent(sessionKey, forKey: .sessionKey)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(limits, forKey: .limits)
        try container.encode(settings, forKey: .settings)
        try container.encode(mode, forKey: .mode)
        try container.encode(users.values.map { StoredUser(user: $0, publishing: $0.publishing) }, forKey: .users)
        try container.encodeIfPresent(hostID, forKey: .hostID)
        try container.encode(preList, forKey: .preList)
        try container.encode(phase, forKey: .phase)
        try container.encode(rooms, forKey: .rooms)
        try container.encodeIfPresent(timer, forKey: .timer)
        try container.encode(parent, forKey: .parent)
        try container.encode(PendingInvitation.list(invitations), forKey: .invitations)
        try container.encode(helpRequests, forKey: .helpRequests)
        try container.encode(nextUserNumber, forKey: .nextUserNumber)
        try container.encode(nextRoomNumber, forKey: .nextRoomNumber)
        try container.encode(nextHelpNumber, forKey: .nextHelpNumber)
        try container.encode(nextMessageNumber, forKey: .nextMessageNumber)
        try container.encodeIfPresent(voiceBroadcaster, forKey: .voiceBroadcaster)
        try container.encode(Listener.list(listeners), forKey: .listeners)
        if !requestKeys.isEmpty {
            let stored = requestKeys.sorted { $0.key.rawValue < $1.key.rawValue }.map { StoredRequestKeys(user: $0.key, requests: $0.value) }
            try container.encode(stored, forKey: .requestKeys)
        }
        if !removedIdentities.isEmpty { try container.encode(removedIdentities.sorted(), forKey: .removedIdentities) }
        if recording != .none { try container.encode(recording, forKey: .recording) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(limits: try container.decode(SessionLimits.self, forKey: .limits), settings: try container.decode(SessionSettings.self, forKey: .settings))
        switch try container.decode(StoredLifecycle.self, forKey: .lifecycle) {
        case .awaitingFirstJoin: lifecycle = .awaitingFirstJoin
        case .live: lifecycle = .live
        case .ended: lifecycle = .ended(try container.decode(EndReason.self, forKey: .endReason))
        }
        name = try container.decode(String.self, forKey: .name)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        sessionKey = try container.decodeIfPresent(String.self, forKey: .sessionKey)
        createdAt = try container.decode(Instant.self, forKey: .createdAt)
        mode = try container.decode(SessionMode.self, forKey: .mode)
        let stored = try container.decode([StoredUser].self, forKey: .users)
        users = OrderedDictionary(
            stored.map { entry in
                var user = entry.user
                user.publishing = entry.publishing
                return (user.id, user)
            },
            uniquingKeysWith: { _, last in last })
        hostID = try container.decodeIfPresent(UserID.self, forKey: .hostID)
        preList = try container.decode([PlannedRoom].self, forKey: .preList)
        phase = try container.decode(BreakoutPhase.self, forKey: .phase)
        rooms = try container.decode([Room].self, forKey: .rooms)
        timer = try container.decodeIfPresent(BreakoutTimer.self, forKey: .timer)
        parent = try container.decode(ParentControl.self, forKey: .parent)
        let pending = try container.decode([PendingInvitation].self, forKey: .invitations)
        invitations = Dictionary(pending.map { ($0.user, $0.room) }, uniquingKeysWith: { _, last in last })
        helpRequests = try container.decode([HelpRequest].self, forKey: .helpRequests)
        nextUserNumber = try container.decode(Int.self, forKey: .nextUserNumber)
        nextRoomNumber = try container.decode(Int.self, forKey: .nextRoomNumber)
        nextHelpNumber = try container.decode(Int.self, forKey: .nextHelpNumber)
        nextMessageNumber = try container.decode(Int.self, forKey: .nextMessageNumber)
        voiceBroadcaster = try container.decodeIfPresent(UserID.self, forKey: .voiceBroadcaster)
        let listening = try container.decodeIfPresent([Listener].self, forKey: .listeners) ?? []
        listeners = OrderedDictionary(listening.map { ($0.user, $0.room) }, uniquingKeysWith: { _, last in last })
        let remembered = try container.decodeIfPresent([StoredRequestKeys].self, forKey: .requestKeys) ?? []
        requestKeys = Dictionary(remembered.map { ($0.user, $0.requests) }, uniquingKeysWith: { _, last in last })
        removedIdentities = Set(try container.decodeIfPresent([String].self, forKey: .removedIdentities) ?? [])
        recording = try container.decodeIfPresent(RecordingSet.self, forKey: .recording) ?? .none
    }
}
