/// Why the session refused a command. Every refusal changes nothing and emits no event.
public struct CaucusError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable name of the code, e.g. `needPassword`.
    public var name: String { code.name }
    public var description: String { "\(code.rawValue) \(code.name): \(message)" }

    /// The seed status a refused commit, withdraw, start or stop reports to the one who tried.
    public static func failureStatus(of command: Command) -> SubsessionStatus? {
        switch command {
        case .commit: .commitFailed
        case .withdraw: .withdrawFailed
        case .start: .startFailed
        case .stop: .stopFailed
        default: nil
        }
    }
}

extension CaucusError {
    /// Stable numeric codes. Never renumber one; add new ones at the end of their block.
    /// 1xxx protocol and server, 2xxx joining (21xx tokens), 3xxx roles, 4xxx subsessions,
    /// 5xxx breakout rooms (5067 is EnableX's), 6xxx settings and chat. The core raises 2xxx
    /// to 6xxx; the shells raise 1xxx and 21xx. This enum is the one catalog of all of them.
    public enum Code: Int, Sendable, CaseIterable, Codable {
        case malformedFrame = 1001
        case unknownOperation = 1002
        case frameTooLarge = 1003
        case invalidArguments = 1004
        case notJoined = 1005
        case alreadyJoined = 1006
        case resumeRefused = 1007
        case binaryFrame = 1008
        case internalError = 1010
        case unauthorized = 1011
        case notFound = 1012
        case methodNotAllowed = 1013


        case sessionNameEmpty = 2001
        case sessionNameTooLong = 2002
        case userNameEmpty = 2003
        case userNameTooLong = 2004
        case passwordTooLong = 2005
        case userIdentityTooLong = 2006
        case sessionKeyTooLong = 2007
        case sessionNameMismatch = 2008
        case needPassword = 2010
        case passwordWrong = 2011
        case sessionEnded = 2012
        case sessionFull = 2013
        case sessionNotStarted = 2014
        case nameCharacterForbidden = 2015

        case tokenMalformed = 2101
        case tokenAlgorithmRefused = 2102
        case tokenSignatureInvalid = 2103
        case tokenExpired = 2104
        case tokenNotYetValid = 2105
        case tokenLifetimeTooLong = 2106
        case tokenSessionMismatch = 2107
        case unknownApp = 2108
        case invalidRoleType = 2109
        case invalidTokenVersion = 2110
        case tokenMissingClaim = 2111

        case notPermitted = 3001
        case userNotFound = 3002
        case alreadyManager = 3003
        case notManager = 3004
        case targetIsHost = 3005
        case userRequired = 3006
        case notReconnecting = 3007
        case alreadyReconnecting = 3008

        case roomNameEmpty = 4001
        case roomNameTooLong = 4002
        case duplicateRoomName = 4003
        case tooManySubsessions = 4004
        case notInPreList = 4005
        case preListEmpty = 4006
        case wrongStatus = 4007
        case roomNotFound = 4008
        case selfSelectDisabled = 4009
        case returnDisabled = 4010
        case notInRoom = 4011
        case alreadyInRoom = 4012
        case roomFull = 4013
        case helpAlreadyRequested = 4014
        case helpRequestNotFound = 4015
        case noTimer = 4016
        case invalidDuration = 4017
        case nobodyToMove = 4018
        case emptyUserList = 4019

        case notInParentRoom = 5001
        case invalidRoomDefinition = 5002
        case invitationNotFound = 5003
        case parentAlreadyPaused = 5004
        case parentNotPaused = 5005
        case nothingToMute = 5006
        case parentPaused = 5007
        case breakoutActive = 5008
        case lectureMode = 5067

        case invalidSettings = 6001
        case messageEmpty = 6002
        case messageTooLong = 6003

        public var name: String { String(describing: self) }
    }
}
