import CaucusCore
import CaucusJSONSyntax
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
    /// Allowed at any time; once joined, the reply says how many events after `after` this
    /// seat was sent, so the client can check that it received them all.
    case ping(after: Int?)
    /// A WebRTC offer (SDP text): the reply carries the server's answer. Not a command: media
    /// transport is the server's, not the session's state.
    /// `screenShareMids` names the offer's video sections that carry screen share.
    case mediaOffer(sdp: String, screenShareMids: [String])
    /// Fresh credentials for the TURN servers the server hands out (none without TURN): for a
    /// new media peer made after the ones from the join or resume reply expired.
    case iceServers
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
        let (fields, id) = try decodeFields(data)
        guard let id else { throw FrameError(id: nil, error: RequestReading.idError) }
        do {
            return ClientFrame(id: id, request: try fields.makeRequest())
        } catch {
            throw FrameError(id: id, error: error)
        }
    }

    /// Decodes an operation that needs no request id: the body of the HTTP control API's
    /// `POST /v1/sessions/{id}/operations`, which takes the same JSON as a WebSocket request.
    public static func decodeOperation(_ data: Data) throws(FrameError) -> Request {
        let (fields, id) = try decodeFields(data)
        do {
            return try fields.makeRequest()
        } catch {
            throw FrameError(id: id, error: error)
        }
    }

    /// The strict syntax check first (Foundation's decoder would accept duplicate keys,
    /// trailing commas, raw control characters and a byte-order mark), then the typed decode.
    /// An `id` that is present but not an integer is an error; an absent one is `nil`.
    private static func decodeFields(_ data: Data) throws(FrameError) -> (RequestFields, id: Int?) {
        let findings: JSONSyntax.Findings
        do {
            // Only what lies under a field a request has is read (see below): nothing else is kept.
            findings = try data.withUnsafeBytes { buffer throws(JSONSyntaxError) in
                try JSONSyntax.validate(buffer, recordingUnder: RequestFields.knownNames)
            }
        } catch {
            throw FrameError(id: nil, error: CaucusError(.malformedFrame, "The frame is not valid JSON: \(error)."))
        }
        // Unknown fields are ignored, whatever their value: only a known one may not be null
        // (but for the main session among recording's `locations`, as locations are written).
        if let null = findings.nulls.first(where: { RequestFields.isKnown($0) && !RequestFields.namesMainSession($0) })?.path {
            let error = null == "id" ? RequestReading.idError : RequestReading.nullArgument(null)
            throw FrameError(id: RequestReading.readableID(data), error: error)
        }
        // Every number a request takes is an integer; Foundation would report a fraction or an
        // overflow without saying where.
        if let number = findings.nonIntegers.first(where: RequestFields.isKnown)?.path {
            let error = number == "id" ? RequestReading.idError : RequestReading.notAnInteger(number)
            throw FrameError(id: number == "id" ? nil : RequestReading.readableID(data), error: error)
        }
        let fields: RequestFields
        do {
            fields = try JSONDecoder().decode(RequestFields.self, from: data)
        } catch let error as DecodingError {
            throw FrameError(id: RequestReading.readableID(data), error: RequestReading.describe(error))
        } catch {
            throw FrameError(id: nil, error: RequestReading.notAnObject)
        }
        return (fields, fields.id)
    }
}

/// A frame that could not be turned into a request.
public struct FrameError: Error, Sendable, Equatable {
    /// The request's id, when it could be read.
    public let id: Int?
    public let error: CaucusError
}

