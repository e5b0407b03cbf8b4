import Atomics
import CaucusAuth
import CaucusCore
import CaucusProtocol
import CaucusStore
import Foundation
import Hummingbird
import HummingbirdCore

/// The HTTP control API for an app's own servers: HTTP Basic authentication with the app's
/// key and secret; JSON in and out; errors as `{"error": {code, name, message}}`.
extension SessionServer {
    func controlRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ControlErrorMiddleware())
        addConsoleRoutes(to: router)
        addHealthRoutes(to: router)
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        let v1 = router.group("v1")
        v1.get("sessions") { request, _ in
            try await self.control(request) { app in Self.json(["sessions": try await self.liveSessions(of: app)]) }
        }
        v1.get("sessions/:id") { request, context in
            try await self.control(request) { app in Self.json(try await self.session(context, app).view()) }
        }
        v1.delete("sessions/:id") { request, context in
            try await self.control(request) { app in
                let seq = try await self.session(context, app).perform(.endSession, by: .server)
                return Self.json(["seq": seq])
            }
        }
        v1.delete("sessions/:id/users/:user") { request, context in
            try await self.control(request) { app in
                guard let user = context.parameters.get("user", as: Int.self) else {
                    throw CaucusError(.invalidArguments, "The user id must be an integer.")
                }
                let seq = try await self.session(context, app).perform(.remove(UserID(user)), by: .server)
                return Self.json(["seq": seq])
            }
        }
        v1.post("sessions/:id/operations") { request, context in
            try await self.control(request) { app in
                let session = try await self.session(context, app)
                let body = try await request.body.collect(upTo: self.configuration.maxFrameBytes)
                let operation: CaucusProtocol.Request
                switch Result(catching: { () throws(FrameError) in try ClientFrame.decodeOperation(Data(buffer: body)) }) {
                case .success(let decoded): operation = decoded
                case .failure(let failure): throw failure.error
                }
                switch operation {
                case .command(let command):
                    let seq: Int?
                    do {
                        seq = try await session.perform(command, by: .server)
                    } catch let error as CaucusError {
                        throw ControlFailure(error: error, status: CaucusError.failureStatus(of: command))
                    }
                    return Self.json(["seq": seq])
                case .updateSettings(let change):
                    return Self.json(["seq": try await session.settingsChange(change, by: .server)])
                case .query, .ping, .join, .resume, .mediaOffer, .iceServers:
                    throw CaucusError(.unknownOperation, "Only commands run here; read state with GET /v1/sessions/{id}.")
                }
            }
        }
        v1.get("sessions/:id/recordings") { request, context in
            try await self.control(request, query: ["limit", "after"]) { app in try await self.listRecordings(request, context, app) }
        }
        v1.delete("sessions/:id/recordings") { request, context in
            try await self.control(request) { app in try await self.deleteRecordings(context, app, oneLocation: false) }
        }
        v1.get("sessions/:id/recordings/:location/:file") { request, context in
            try await self.control(request) { app in try await self.recordingFile(request, context, app) }
        }
        v1.delete("sessions/:id/recordings/:location") { request, context in
            try await self.control(request) { app in try await self.deleteRecordings(context, app, oneLocation: true) }
        }
        v1.post("sessions/:id/recording/start") { request, context in try await self.recording(.startRecording, request, context) }
        v1.post("sessions/:id/recording/stop") { request, context in try await self.recording(.stopRecording, request, context) }
        v1.get("history") { request, _ in
            try await self.control(request, query: ["limit"]) { app in
                // As the OpenAPI document says: 1 to 1000, 50 when absent.
                let limit = try Self.limit(of: request, in: 1...1000, absent: 50)
                return Self.json(["sessions": try await self.store.history(app: app.key, limit: limit)])
            }
        }
        return router
    }

    /// The live session the path names. On several nodes, one another node serves is
    /// answered with a redirect there (`ServedElsewhere`, see `control`).
    func session(_ context: BasicRequestContext, _ app: AppCredentials) async throws -> SessionActor {
        let missing = CaucusError(.notFound, "No live session with that id in this app.")
        guard let raw = context.parameters.get("id", as: Int64.self) else { throw missing }
        switch try await placement(of: raw) {
        case .here(let session) where session.app == app.key: return session
        case .elsewhere(let node):
            // Ids are numbers anyone can count through: only the app's own session is said to be
            // live elsewhere (and where); another app's is answered as if it did not exist.
            guard try await isLiveSession(raw, of: app) else { throw missing }
            throw ServedElsewhere(node: node)
        case .here, nil: throw missing
        }
    }

    /// Whether the live session `id` (on any node) is `app`'s, as the shared store says.
    private func isLiveSession(_ id: Int64, of app: AppCredentials) async throws -> Bool {
        guard let shared = store as? any ClusterStore else { return false }
        do {
            return try await shared.liveSession(StoredSessionID(rawValue: id), replayDepth: 0)?.app == app.key
        } catch {
            logger.error("session \(id) could not be read: \(error)")
            throw CaucusError.serverFailure
        }
    }

    /// Where the live session `id` is (nil: ended, or never was); a store that cannot say is
    /// the server's failure, logged.
    func placement(of id: Int64) async throws -> SessionPlacement? {
        do {
            return try await router.place(StoredSessionID(rawValue: id))
        } catch {
            logger.error("session \(id) could not be found or taken over: \(error)")
            throw CaucusError.serverFailure
        }
    }

    /// The request's `limit` query parameter: a whole number in `limits`, `absent` when it is
    /// not given. Anything else is refused, not clamped.
    static func limit(of request: HummingbirdCore.Request, in limits: ClosedRange<Int>, absent: Int) throws(CaucusError) -> Int {
        guard let given = request.uri.queryParameters.get("limit") else { return absent }
        guard let limit = Int(given), limits.contains(limit) else {
            throw CaucusError(.invalidArguments, "limit must be an integer from \(limits.lowerBound) to \(limits.upperBound).")
        }
        return limit
    }

    /// Authenticates the app, refuses query parameters the route does not take (or takes once),
    /// and turns refusals into JSON error responses.
    func control(
        _ request: HummingbirdCore.Request, query allowed: Set<Substring> = [], _ body: (AppCredentials) async throws -> Response
    ) async throws -> Response {
        guard let app = authenticate(request) else {
            return Self.failure(CaucusError(.unauthorized, "Use HTTP Basic authentication with the app's key and secret."), status: nil)
        }
        var seen = Set<Substring>()
        for (name, _) in request.uri.queryParameters {
            let taken = allowed.isEmpty ? "none" : "only " + allowed.sorted().joined(separator: ", ")
            guard allowed.contains(name) else {
                return Self.failure(CaucusError(.invalidArguments, "Unknown query parameter \"\(name)\": this route takes \(taken)."), status: nil)
            }
            guard seen.insert(name).inserted else {
                return Self.failure(CaucusError(.invalidArguments, "The query parameter \"\(name)\" is given twice."), status: nil)
            }
        }
        do {
            return try await body(app)
        } catch let failure as ControlFailure {
            return Self.failure(failure.error, status: failure.status)
        } catch let error as CaucusError {
            return Self.failure(error, status: nil)
        } catch let other as ServedElsewhere {
            // 307: the client repeats the same method and body at the node serving the session.
            return Response(status: .temporaryRedirect, headers: [.location: other.node.httpBase + request.uri.description])
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            logger.error("control request \(request.method) \(request.uri.path) failed: \(error)")
            return Self.failure(.serverFailure, status: nil)
        }
    }

    private func authenticate(_ request: HummingbirdCore.Request) -> AppCredentials? {
        // The scheme name is case-insensitive (RFC 7235).
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let key = String(decoded[..<colon])
        let secret = String(decoded[decoded.index(after: colon)...])
        guard let app = apps[key], SecretComparison.equal(app.secret, secret) else { return nil }
        return app
    }

    static func httpStatus(for code: CaucusError.Code) -> HTTPResponse.Status {
        switch code {
        case .unauthorized: .unauthorized
        case .methodNotAllowed: .methodNotAllowed
        case .notFound, .userNotFound, .roomNotFound, .helpRequestNotFound, .invitationNotFound: .notFound
        case .notPermitted: .forbidden
        case .internalError: .internalServerError
        case .frameTooLarge: .contentTooLarge
        case .wrongStatus, .lectureMode, .sessionEnded, .breakoutActive: .conflict
        default: .badRequest
        }
    }

    static func failure(_ error: CaucusError, status: SubsessionStatus?) -> Response {
        var response = json(["error": ErrorBody(error, status: status)])
        response.status = httpStatus(for: error.code)
        return response
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `/healthz` (is the node well: several nodes, does the shared store answer it) and
    /// `/readyz` (may a load balancer send it new clients: well, and not stopping). A node
    /// the store does not answer gives its sessions up and can serve none (503).
    func health(readiness: Bool) async -> Response {
        if let storeReachability, !(await storeReachability.isReachable) {
            let reason = await storeReachability.lastFailure ?? "no answer from the store"
            return Self.json(["status": "storeUnreachable", "reason": reason], status: .serviceUnavailable)
        }
        if readiness && stopping.load(ordering: .relaxed) {
            return Self.json(["status": "stopping"], status: .serviceUnavailable)
        }
        return Self.json(["status": readiness ? "ready" : "ok"])
    }

    /// `/healthz`, `/readyz` and `/metrics`: on the main port, and on the health port.
    func addHealthRoutes(to router: Router<BasicRequestContext>) {
        router.get("/healthz") { _, _ in await self.health(readiness: false) }
        router.get("/readyz") { _, _ in await self.health(readiness: true) }
        router.get("/metrics") { _, _ in
            await self.refreshGauges()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: self.metrics.prometheusText())))
        }
    }

    func refreshGauges() async {
        let sessions = await registry.all()
        var users = 0
        for session in sessions { users += await session.state.users.count }
        metrics.sessions.record(sessions.count)
        metrics.users.record(users)
        metrics.unjoinedConnections.record(admission.waitingTotal)
    }
}

/// Hummingbird's own refusals (no such route, a body too large) in the API's JSON error form.
struct ControlErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: HummingbirdCore.Request, context: Context, next: (HummingbirdCore.Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            var response: Response
            switch error.status {
            case .notFound, .methodNotAllowed:
                // A path the API has, asked with a method it does not take: 405 and the methods it does.
                if let allowed = ControlRouteTable.methods(for: request.uri.path) {
                    let names = allowed.map(\.rawValue).joined(separator: ", ")
                    var refusal = SessionServer.failure(
                        CaucusError(.methodNotAllowed, "\(request.uri.path) takes \(names), not \(request.method)."), status: nil)
                    refusal.headers[.allow] = names
                    return refusal
                }
                response = SessionServer.failure(CaucusError(.notFound, "No such route: \(request.method) \(request.uri.path)."), status: nil)
            case .contentTooLarge:
                response = SessionServer.failure(CaucusError(.frameTooLarge, "The request body is too large."), status: nil)
            default:
                response = SessionServer.failure(CaucusError(.invalidArguments, (error as? HTTPError)?.body ?? "Bad request."), status: nil)
            }
            response.status = error.status
            return response
        }
    }
}

/// A refused command with the seed status its refusal reports.
struct ControlFailure: Error {
    let error: CaucusError
    let status: SubsessionStatus?
}

/// One line of the session list.
struct SessionSummary: Codable, Sendable {
    let id: StoredSessionID
    let name: String
    let createdAt: Instant
    /// Nil for a session another node serves (ask that node: `node`).
    let users: Int?
    let status: SubsessionStatus?
    let seq: Int
    /// Several nodes: the node serving the session (nil on one node).
    var node: String? = nil
}

/// One session as the control API shows it: everything, with no viewer's restrictions.
struct SessionView: Codable, Sendable {
    let id: StoredSessionID
    let name: String
    let createdAt: Instant
    let seq: Int
    let hostID: UserID?
    let mode: SessionMode
    let settings: SessionSettings
    let users: [UserView]
    let breakout: BreakoutSnapshot
    let preList: [PlannedRoom]
    let helpRequests: [HelpRequest]
    /// Absent when nobody broadcasts.
    let voiceBroadcaster: UserID?
    let listeners: [Listener]
    let invitations: [PendingInvitation]
    /// What the session records; absent when nothing is recorded and the server made no stop of its own.
    let recording: RecordingView?
}

/// What a session records, as the control API shows it: the set as chosen, and every location it covers now.
struct RecordingView: Codable, Sendable {
    let locations: [Location]
    let everyRoom: Bool
    /// Every location recorded now (`everyRoom` expanded to the rooms that exist).
    let recorded: [Location]
    /// The server's last stop of its own (a full disk, a quota); absent when none.
    let stopped: RecordingStop?
}

extension SessionActor {
    func summary() -> SessionSummary {
        SessionSummary(id: id, name: state.name, createdAt: state.createdAt, users: state.users.count, status: state.status, seq: seq)
    }

    func view() -> SessionView {
        SessionView(
            id: id, name: state.name, createdAt: state.createdAt, seq: seq, hostID: state.hostID, mode: state.mode,
            settings: state.settings, users: state.users.values.map { UserView($0, role: state.role(of: $0)) },
            breakout: state.snapshot, preList: state.preList, helpRequests: state.helpRequests, voiceBroadcaster: state.voiceBroadcaster,
            listeners: state.listeners.map { Listener(user: $0.key, room: $0.value) },
            invitations: state.invitations.map { PendingInvitation(user: $0.key, room: $0.value) }.sorted { $0.user.rawValue < $1.user.rawValue },
            recording: state.recording == .none
                ? nil
                : RecordingView(
                    locations: state.recording.locations, everyRoom: state.recording.everyRoom, recorded: state.recordedLocations,
                    stopped: state.recording.stopped))
    }
}
