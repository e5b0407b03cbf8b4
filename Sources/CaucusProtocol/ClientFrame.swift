import CaucusCore
import Foundation

/// One frame from a client: `{"id": 7, "op": "chat", "text": "hello"}`.
public struct ClientFrame: Sendable, Equatable {
    public let id: Int
    public let request: Request

    public init(id: Int, request: Request) {
        self.id = id
        self.request = request
    }
}

public enum Request: Sendable, Equatable {
    /// The first frame of a connection: the token travels in the frame, never in the URL.
    case join(JoinArguments)
    /// The first frame of a reconnecting connection.
    case resume(ResumeArguments)
    case command(Command)
    /// Resolved against the session's current settings by the server.
    case updateSettings(SettingsChange)
    case query(Query)
}

public struct JoinArguments: Sendable, Equatable, Codable {
    public let session: String
    public let userName: String
    public let token: String
    public let password: String?

    public init(session: String, userName: String, token: String, password: String? = nil) {
        self.session = session
        self.userName = userName
        self.token = token
        self.password = password
    }
}

public struct ResumeArguments: Sendable, Equatable, Codable {
    /// The secret from the join reply.
    public let secret: String
    /// The last `seq` this client saw; events after it are replayed.
    public let lastSeq: Int

    public init(secret: String, lastSeq: Int) {
        self.secret = secret
        self.lastSeq = lastSeq
    }
}

extension ClientFrame {
    /// Decodes one text frame. Every failure is a `CaucusError` with a protocol code, and the
    /// frame's `id` when it could be read, so the reply can still carry `re`.
    public static func decode(_ data: Data) throws(FrameError) -> ClientFrame {
        let fields = try decodeFields(data)
        guard let id = fields.id else {
            throw FrameError(id: nil, error: CaucusError(.invalidArguments, "Every request needs an integer \"id\"."))
        }
        do {
            return ClientFrame(id: id, request: try fields.makeRequest())
        } catch {
            throw FrameError(id: id, error: error)
        }
    }

    /// Decodes an operation that needs no request id: the body of the HTTP control API's
    /// `POST /v1/sessions/{id}/operations`, which takes the same JSON as a WebSocket request.
    public static func decodeOperation(_ data: Data) throws(FrameError) -> Request {
        let fields = try decodeFields(data)
        do {
            return try fields.makeRequest()
        } catch {
            throw FrameError(id: fields.id, error: error)
        }
    }

    private static func decodeFields(_ data: Data) throws(FrameError) -> RequestFields {
        do {
            return try JSONDecoder().decode(RequestFields.self, from: data)
        } catch let error as DecodingError {
            throw FrameError(id: Self.bestEffortID(data), error: Self.describe(error))
        } catch {
            throw FrameError(id: nil, error: CaucusError(.malformedFrame, "The frame is not JSON."))
        }
    }

    private struct IDOnly: Decodable { let id: Int? }

    private static func bestEffortID(_ data: Data) -> Int? {
        (try? JSONDecoder().decode(IDOnly.self, from: data))?.id
    }

    private static func describe(_ error: DecodingError) -> CaucusError {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return CaucusError(.malformedFrame, "The frame is not valid JSON (UTF-8 text holding one object).")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return CaucusError(.malformedFrame, "The frame must be a JSON object.")
        case .typeMismatch(let type, let context):
            return CaucusError(.invalidArguments, "\"\(path(context))\" must be \(WireType.name(of: type)).")
        case .valueNotFound(let type, let context):
            return CaucusError(.invalidArguments, "\"\(path(context))\" must be \(WireType.name(of: type)), not null.")
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return CaucusError(.invalidArguments, "Missing \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\".")
        case .dataCorrupted(let context):
            return CaucusError(.invalidArguments, "\"\(path(context))\" is not a valid value: \(context.debugDescription)")
        @unknown default:
            return CaucusError(.invalidArguments, "The request's arguments are invalid.")
        }
    }
}

/// A frame that could not be turned into a request.
public struct FrameError: Error, Sendable, Equatable {
    /// The request's id, when it could be read.
    public let id: Int?
    public let error: CaucusError
}

enum WireType {
    static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is [String].Type: "an array of strings"
        case is [Int].Type: "an array of integers"
        default: "a \(type)"
        }
    }
}
