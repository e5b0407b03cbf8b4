import CaucusCore
import CaucusProtocol
import Foundation

typealias WireOperation = CaucusProtocol.Operation

/// One request as the server reads it: `{"id": 7, "op": "chat", "text": "hello"}`, built
/// from the protocol's own `RequestFields`, so client and server share the argument names.
typealias WireRequest = RequestFields

extension WireRequest {
    /// The request's text frame under `id`.
    func frame(id: Int) throws(SessionError) -> String {
        var numbered = self
        numbered.id = id
        do {
            return String(decoding: try JSONEncoder().encode(numbered), as: UTF8.self)
        } catch {
            throw .invalidRequest("\(op ?? "a request") could not be encoded: \(error)")
        }
    }
}

// MARK: - Builders, one per operation the SDK sends

extension WireRequest {
    static func join(session: String, userName: String, token: String, password: String?) -> WireRequest {
        var request = WireRequest(.join)
        request.protocol = ProtocolVersion.current
        request.session = session
        request.userName = userName
        request.token = token
        request.password = password
        return request
    }

    static func resume(secret: String, lastSeq: Int) -> WireRequest {
        var request = WireRequest(.resume)
        request.protocol = ProtocolVersion.current
        request.secret = secret
        request.lastSeq = lastSeq
        return request
    }

    static func publish(_ media: MediaKinds) -> WireRequest {
        var request = WireRequest(.publish)
        request.media = media.kinds
        return request
    }

    static func leave(endSession: Bool) -> WireRequest {
        var request = WireRequest(.leave)
        request.endSession = endSession
        return request
    }

    /// An operation about one user: makeManager, revokeManager, transferHost, remove, returnUser.
    static func about(_ user: UserID, _ op: WireOperation) -> WireRequest {
        var request = WireRequest(op)
        request.user = user
        return request
    }

    static func rename(_ user: UserID, to name: String) -> WireRequest {
        var request = about(user, .rename)
        request.name = name
        return request
    }

    /// addToPreList or removeFromPreList.
    static func preList(_ op: WireOperation, _ names: [String]) -> WireRequest {
        var request = WireRequest(op)
        request.names = names
        return request
    }

    static func preAssign(_ users: [UserID], to name: String) -> WireRequest {
        var request = WireRequest(.preAssign)
        request.users = users
        request.name = name
        return request
    }

    static func renamePlannedRoom(_ name: String, to newName: String) -> WireRequest {
        var request = WireRequest(.renamePlannedRoom)
        request.name = name
        request.newName = newName
        return request
    }

    static func unassign(_ users: [UserID]) -> WireRequest {
        var request = WireRequest(.unassign)
        request.users = users
        return request
    }

    static func renameRoom(_ room: RoomID, to newName: String) -> WireRequest {
        var request = WireRequest(.renameRoom)
        request.room = room
        request.newName = newName
        return request
    }

    static func start(_ options: StartOptions) -> WireRequest {
        var request = WireRequest(.start)
        request.durationSeconds = options.durationSeconds
        request.autoAssign = options.autoAssign
        request.autoMove = options.autoMove
        return request
    }

    static func stop(countdownSeconds: Int?) -> WireRequest {
        var request = WireRequest(.stop)
        request.countdownSeconds = countdownSeconds
        return request
    }

    /// broadcast, or chat to the sender's room (`to` nil) or to one user, under the app's
    /// `requestKey` if it gave one.
    static func text(_ op: WireOperation, _ text: String, to user: UserID? = nil, requestKey: String? = nil) -> WireRequest {
        var request = WireRequest(op)
        request.text = text
        request.to = user
        request.requestKey = requestKey
        return request
    }

    static func extendTimer(seconds: Int) -> WireRequest {
        var request = WireRequest(.extendTimer)
        request.seconds = seconds
        return request
    }

    /// An operation about one room: joinRoom, acceptInvitation, rejectInvitation.
    static func room(_ room: RoomID, _ op: WireOperation) -> WireRequest {
        var request = WireRequest(op)
        request.room = room
        return request
    }

    static func assign(_ users: [UserID], to room: RoomID) -> WireRequest {
        var request = WireRequest(.assign)
        request.users = users
        request.room = room
        return request
    }

    static func answerHelp(_ id: HelpRequestID, _ answer: HelpAnswer) -> WireRequest {
        var request = WireRequest(.answerHelp)
        request.request = id
        request.answer = answer
        return request
    }

    /// createRooms (`forceJoin` nil) or createAndInvite.
    static func createRooms(_ definition: RoomDefinition, count: Int, forceJoin: Bool?) -> WireRequest {
        var request = WireRequest(forceJoin == nil ? .createRooms : .createAndInvite)
        request.definition = definition
        request.count = count
        request.forceJoin = forceJoin
        return request
    }

    static func invite(_ users: [UserID], to room: RoomID, forceJoin: Bool) -> WireRequest {
        var request = WireRequest(.invite)
        request.users = users
        request.room = room
        request.forceJoin = forceJoin
        return request
    }

    /// muteParent or unmuteParent.
    static func parentMedia(_ op: WireOperation, audio: Bool, video: Bool) -> WireRequest {
        var request = WireRequest(op)
        request.audio = audio
        request.video = video
        return request
    }

    static func updateSettings(_ change: SettingsChange) -> WireRequest {
        var request = WireRequest(.updateSettings)
        request.settings = change
        return request
    }

    static func setMode(_ mode: SessionMode) -> WireRequest {
        var request = WireRequest(.setMode)
        request.mode = mode
        return request
    }
}

extension WireRequest {
    /// startRecording or stopRecording: `locations`, or (nil) `all`.
    static func recording(_ op: WireOperation, _ locations: [CaucusLocation]?) -> WireRequest {
        var request = WireRequest(op)
        if let locations { request.locations = locations } else { request.all = true }
        return request
    }
}
