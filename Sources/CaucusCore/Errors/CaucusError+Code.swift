extension CaucusError {
    /// A stable numeric error code. Never renumber one; add new ones at the end of their block.
    /// 1xxx protocol and server, 2xxx joining (21xx tokens), 3xxx roles, 4xxx subsessions,
    /// 5xxx breakout rooms (5067 is EnableX's), 6xxx settings and chat, 7xxx media. The core
    /// raises 2xxx to 7xxx; the shells raise 1xxx and 21xx.
    ///
    /// A struct of constants rather than an enum (as postgres-nio's `PSQLError.Code`), so that a
    /// code added later breaks no client's `switch`: a client matches the codes it handles and
    /// keeps a `default`. Any number is a code; `known` is this build's catalog, the one
    /// `docs/errors.md` lists. Equal codes have equal numbers; on the wire a code is its number.
    public struct Code: Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: Int
        private let knownName: String?

        /// Any number: a code from a newer server is representable, named `unknown`.
        public init(rawValue: Int) {
            self.rawValue = rawValue
            self.knownName = Self.namesByValue[rawValue]
        }

        private init(_ rawValue: Int, _ name: String) {
            self.rawValue = rawValue
            self.knownName = name
        }

        /// The stable name `docs/errors.md` gives, e.g. `needPassword`; `unknown` for a code
        /// this build does not know.
        public var name: String { knownName ?? "unknown" }
        public var description: String { "\(rawValue) \(name)" }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        private static let namesByValue: [Int: String] = Dictionary(
            known.map { ($0.rawValue, $0.name) }, uniquingKeysWith: { first, _ in first }
        )
    }
}

extension CaucusError.Code {
    public static let malformedFrame = Self(1001, "malformedFrame")
    public static let unknownOperation = Self(1002, "unknownOperation")
    public static let frameTooLarge = Self(1003, "frameTooLarge")
    public static let invalidArguments = Self(1004, "invalidArguments")
    public static let notJoined = Self(1005, "notJoined")
    public static let alreadyJoined = Self(1006, "alreadyJoined")
    public static let resumeRefused = Self(1007, "resumeRefused")
    public static let binaryFrame = Self(1008, "binaryFrame")
    public static let internalError = Self(1010, "internalError")
    public static let unauthorized = Self(1011, "unauthorized")
    public static let notFound = Self(1012, "notFound")
    public static let unsupportedProtocol = Self(1013, "unsupportedProtocol")
    public static let methodNotAllowed = Self(1014, "methodNotAllowed")
    /// Several nodes: another node serves the session; the error names it (`url`).
    public static let otherNode = Self(1015, "otherNode")
    /// The web console's development helpers: an invite code this server did not make, or not for that session.
    public static let inviteInvalid = Self(1020, "inviteInvalid")
    /// The web console's development helpers: a new session's name is taken by a live session.
    public static let sessionAlreadyLive = Self(1021, "sessionAlreadyLive")
    /// The web console's development helpers: a participant invite for a session its host has not opened.
    public static let sessionNotOpenYet = Self(1022, "sessionNotOpenYet")
    /// The web console: the class a link was made for has ended; its links open nothing else.
    public static let classEnded = Self(1023, "classEnded")
    /// The web console: a host link its host has replaced with a new one.
    public static let hostLinkReplaced = Self(1024, "hostLinkReplaced")
    /// The web console: a host link opened while its host is in the class; taking the seat over is asked for.
    public static let hostSeatTaken = Self(1025, "hostSeatTaken")

    public static let sessionNameEmpty = Self(2001, "sessionNameEmpty")
    public static let sessionNameTooLong = Self(2002, "sessionNameTooLong")
    public static let userNameEmpty = Self(2003, "userNameEmpty")
    public static let userNameTooLong = Self(2004, "userNameTooLong")
    public static let passwordTooLong = Self(2005, "passwordTooLong")
    public static let userIdentityTooLong = Self(2006, "userIdentityTooLong")
    public static let sessionKeyTooLong = Self(2007, "sessionKeyTooLong")
    public static let sessionNameMismatch = Self(2008, "sessionNameMismatch")
    public static let needPassword = Self(2010, "needPassword")
    public static let passwordWrong = Self(2011, "passwordWrong")
    public static let sessionEnded = Self(2012, "sessionEnded")
    public static let sessionFull = Self(2013, "sessionFull")
    public static let sessionNotStarted = Self(2014, "sessionNotStarted")
    public static let nameCharacterForbidden = Self(2015, "nameCharacterForbidden")
    /// A join would open a session beyond its app's number of live sessions (`maxSessions`).
    public static let tooManySessions = Self(2016, "tooManySessions")
    /// The web console's development helpers: a personal link whose person has a seat (or is on
    /// the way in) from another browser; one person, one seat.
    public static let personalLinkInUse = Self(2017, "personalLinkInUse")
    /// The web console's development helpers: a personal link asked for with a code that is
    /// not the session's host link.
    public static let hostInviteRequired = Self(2018, "hostInviteRequired")
    /// `muteUser` by a manager aimed at the host or another manager: a manager mutes participants.
    public static let cannotMuteUser = Self(2019, "cannotMuteUser")
    /// `muteUser` naming kinds the user does not publish now: nothing to turn off.
    public static let notPublishing = Self(2020, "notPublishing")
    /// `muteUser` aimed at the caller: one mutes oneself with `publish`.
    public static let muteSelf = Self(2021, "muteSelf")
    /// A join or rename to a name a present user already has (compared as `UserNameKey` does).
    public static let userNameTaken = Self(2030, "userNameTaken")
    /// A join with the identity (`user_identity`) of a user the host removed from this session.
    public static let removedFromSession = Self(2031, "removedFromSession")
    /// A join from an address that sent too many wrong passwords for the session lately.
    public static let passwordAttemptsExceeded = Self(2032, "passwordAttemptsExceeded")
    /// A join or rename to a name ending with a role's mark, "(Host)" say (`RoleMarkRule`).
    public static let userNameImitatesRole = Self(2033, "userNameImitatesRole")

    public static let tokenMalformed = Self(2101, "tokenMalformed")
    public static let tokenAlgorithmRefused = Self(2102, "tokenAlgorithmRefused")
    public static let tokenSignatureInvalid = Self(2103, "tokenSignatureInvalid")
    public static let tokenExpired = Self(2104, "tokenExpired")
    public static let tokenNotYetValid = Self(2105, "tokenNotYetValid")
    public static let tokenLifetimeTooLong = Self(2106, "tokenLifetimeTooLong")
    public static let tokenSessionMismatch = Self(2107, "tokenSessionMismatch")
    public static let unknownApp = Self(2108, "unknownApp")
    public static let invalidRoleType = Self(2109, "invalidRoleType")
    public static let invalidTokenVersion = Self(2110, "invalidTokenVersion")
    public static let tokenMissingClaim = Self(2111, "tokenMissingClaim")

    public static let notPermitted = Self(3001, "notPermitted")
    public static let userNotFound = Self(3002, "userNotFound")
    public static let alreadyManager = Self(3003, "alreadyManager")
    public static let notManager = Self(3004, "notManager")
    public static let targetIsHost = Self(3005, "targetIsHost")
    public static let userRequired = Self(3006, "userRequired")
    public static let notReconnecting = Self(3007, "notReconnecting")
    public static let alreadyReconnecting = Self(3008, "alreadyReconnecting")

    public static let roomNameEmpty = Self(4001, "roomNameEmpty")
    public static let roomNameTooLong = Self(4002, "roomNameTooLong")
    public static let duplicateRoomName = Self(4003, "duplicateRoomName")
    public static let tooManySubsessions = Self(4004, "tooManySubsessions")
    public static let notInPreList = Self(4005, "notInPreList")
    public static let preListEmpty = Self(4006, "preListEmpty")
    public static let wrongStatus = Self(4007, "wrongStatus")
    public static let roomNotFound = Self(4008, "roomNotFound")
    public static let selfSelectDisabled = Self(4009, "selfSelectDisabled")
    public static let returnDisabled = Self(4010, "returnDisabled")
    public static let notInRoom = Self(4011, "notInRoom")
    public static let alreadyInRoom = Self(4012, "alreadyInRoom")
    public static let roomFull = Self(4013, "roomFull")
    public static let helpAlreadyRequested = Self(4014, "helpAlreadyRequested")
    public static let helpRequestNotFound = Self(4015, "helpRequestNotFound")
    public static let noTimer = Self(4016, "noTimer")
    public static let invalidDuration = Self(4017, "invalidDuration")
    public static let nobodyToMove = Self(4018, "nobodyToMove")
    public static let emptyUserList = Self(4019, "emptyUserList")
    public static let notAssigned = Self(4020, "notAssigned")

    public static let notInParentRoom = Self(5001, "notInParentRoom")
    public static let invalidRoomDefinition = Self(5002, "invalidRoomDefinition")
    public static let invitationNotFound = Self(5003, "invitationNotFound")
    public static let parentAlreadyPaused = Self(5004, "parentAlreadyPaused")
    public static let parentNotPaused = Self(5005, "parentNotPaused")
    public static let nothingToMute = Self(5006, "nothingToMute")
    public static let parentPaused = Self(5007, "parentPaused")
    public static let breakoutActive = Self(5008, "breakoutActive")
    public static let lectureMode = Self(5067, "lectureMode")

    public static let invalidSettings = Self(6001, "invalidSettings")
    public static let messageEmpty = Self(6002, "messageEmpty")
    public static let messageTooLong = Self(6003, "messageTooLong")
    /// A `requestKey` this user already gave another command (see `RequestKey`).
    public static let requestKeyReused = Self(6004, "requestKeyReused")

    public static let mediaUnchanged = Self(7001, "mediaUnchanged")
    /// Broadcast voice: someone (perhaps the caller) already broadcasts; one voice at a time.
    public static let voiceBroadcastBusy = Self(7002, "voiceBroadcastBusy")
    public static let noVoiceBroadcast = Self(7003, "noVoiceBroadcast")
    public static let alreadyListening = Self(7004, "alreadyListening")
    public static let notListening = Self(7005, "notListening")
    /// `startRecording` naming a location already recorded (or "every room" while it is on).
    public static let alreadyRecording = Self(7006, "alreadyRecording")
    /// `stopRecording` naming a location not recorded, or with nothing recorded at all.
    public static let notRecording = Self(7007, "notRecording")
    /// `startRecording`/`stopRecording` with no location, one named twice, or both `all` and `locations`.
    public static let invalidRecordingTarget = Self(7008, "invalidRecordingTarget")
    public static let mediaOfferUnreadable = Self(7101, "mediaOfferUnreadable")
    public static let mediaOfferRefused = Self(7102, "mediaOfferRefused")

    /// Every code this build knows, in catalog order.
    public static let known: [Self] = [
        .malformedFrame, .unknownOperation, .frameTooLarge, .invalidArguments, .notJoined, .alreadyJoined,
        .resumeRefused, .binaryFrame, .internalError, .unauthorized, .notFound, .unsupportedProtocol, .methodNotAllowed, .otherNode,
        .inviteInvalid, .sessionAlreadyLive, .sessionNotOpenYet, .classEnded, .hostLinkReplaced, .hostSeatTaken, .sessionNameEmpty,
        .sessionNameTooLong, .userNameEmpty, .userNameTooLong, .passwordTooLong, .userIdentityTooLong,
        .sessionKeyTooLong, .sessionNameMismatch, .needPassword, .passwordWrong, .sessionEnded,
        .sessionFull, .sessionNotStarted, .nameCharacterForbidden, .tooManySessions, .personalLinkInUse, .hostInviteRequired,
        .cannotMuteUser, .notPublishing, .muteSelf, .userNameTaken, .removedFromSession, .passwordAttemptsExceeded, .userNameImitatesRole, .tokenMalformed, .tokenAlgorithmRefused, .tokenSignatureInvalid,
        .tokenExpired, .tokenNotYetValid, .tokenLifetimeTooLong, .tokenSessionMismatch, .unknownApp,
        .invalidRoleType, .invalidTokenVersion, .tokenMissingClaim, .notPermitted, .userNotFound,
        .alreadyManager, .notManager, .targetIsHost, .userRequired, .notReconnecting, .alreadyReconnecting,
        .roomNameEmpty, .roomNameTooLong, .duplicateRoomName, .tooManySubsessions, .notInPreList,
        .preListEmpty, .wrongStatus, .roomNotFound, .selfSelectDisabled, .returnDisabled, .notInRoom,
        .alreadyInRoom, .roomFull, .helpAlreadyRequested, .helpRequestNotFound, .noTimer, .invalidDuration,
        .nobodyToMove, .emptyUserList, .notAssigned, .notInParentRoom, .invalidRoomDefinition, .invitationNotFound,
        .parentAlreadyPaused, .parentNotPaused, .nothingToMute, .parentPaused, .breakoutActive,
        .lectureMode, .invalidSettings, .messageEmpty, .messageTooLong, .requestKeyReused, .mediaUnchanged,
        .voiceBroadcastBusy, .noVoiceBroadcast, .alreadyListening, .notListening, .alreadyRecording, .notRecording,
        .invalidRecordingTarget, .mediaOfferUnreadable, .mediaOfferRefused,
    ]
}
