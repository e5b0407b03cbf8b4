import Foundation
import CaucusCore
import CaucusProtocol

/// Why a call failed. Every call either returns once the server carried it out, or throws
/// one of these.
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the request and changed nothing.
    case refused(ServerError)
    /// Not in a session: join first (or the session was left, ended or lost).
    case notJoined
    /// `join` on a session object that is already joined or joining.
    case alreadyJoined
    /// The server could not be reached.
    case connectionFailed(String)
    /// A `wss://` server could not be spoken to securely: its certificate is not trusted (not
    /// signed by the system's roots or `Configuration.trustRoots`), does not name the server,
    /// has expired, or the handshake failed; the reason says which. Trying again does not help.
    case tlsFailed(String)
    /// The connection dropped before the reply: the outcome is unknown. The request may or
    /// may not have been carried out (it may even reach the server after the resume); the
    /// events replayed after the resume, and the snapshot then, say which. A chat can be sent
    /// again safely under the `requestKey` it was first sent with (`Chat.send`).
    case connectionLost
    /// No reply within `Configuration.requestTimeout`.
    case timedOut
    /// The request could not be encoded (a bug, or a value the protocol cannot carry).
    case invalidRequest(String)
    /// The server sent a frame the SDK could not read.
    case invalidResponse(String)
    /// Audio or video could not be started or sent: the media connection failed or is not
    /// up, or a frame was not what the stream carries (the reason says which).
    case media(String)

    /// The server's refusal, if that is what this is.
    public var serverError: ServerError? {
        if case .refused(let error) = self { return error }
        return nil
    }

    /// The server's error code, when the server refused. A code newer than this SDK is still
    /// a code (named `unknown`): match the ones you handle and keep a `default`.
    public var code: CaucusError.Code? { serverError?.errorCode }

    public var description: String {
        switch self {
        case .refused(let error): error.description
        case .notJoined: "Not in a session."
        case .alreadyJoined: "This session object has already joined."
        case .connectionFailed(let reason): "Could not connect: \(reason)"
        case .tlsFailed(let reason): "Could not connect securely: \(reason)"
        case .connectionLost: "The connection dropped before the server replied."
        case .timedOut: "The server did not reply in time."
        case .invalidRequest(let reason): "Invalid request: \(reason)"
        case .invalidResponse(let reason): "Unreadable reply: \(reason)"
        case .media(let reason): "Media: \(reason)"
        }
    }
}

/// A refusal as the server sent it: the stable code and name of `docs/errors.md`, and a
/// message for people.
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Int
    public let name: String
    public let message: String
    /// For a refused commit, withdraw, start or stop: the seeds' failure status
    /// (`commitFailed`, `withdrawFailed`, `startFailed`, `stopFailed`). The session's own
    /// status is unchanged.
    public let failureStatus: SubsessionStatus?
    /// For `otherNode` (several nodes): the node serving the session. The SDK follows it on
    /// its own; an app does not see this refusal.
    public let nodeURL: URL?

    public init(code: Int, name: String, message: String, failureStatus: SubsessionStatus? = nil, nodeURL: URL? = nil) {
        self.code = code
        self.name = name
        self.message = message
        self.failureStatus = failureStatus
        self.nodeURL = nodeURL
    }

    init(_ body: ErrorBody) {
        self.init(code: body.code, name: body.name, message: body.message, failureStatus: body.status, nodeURL: body.url.flatMap(URL.init(string:)))
    }

    /// The code as a constant to compare with `CaucusError.Code.needPassword` and the like.
    public var errorCode: CaucusError.Code { CaucusError.Code(rawValue: code) }

    public var description: String { "\(code) \(name): \(message)" }
}
