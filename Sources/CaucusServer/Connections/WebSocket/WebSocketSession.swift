import CaucusCore
import CaucusProtocol
import CaucusStore
import Foundation
import Logging
import NIOCore

/// One client's conversation: handles its requests, one at a time and in order, and sends
/// replies and events through its connection. The first frame must be `join` or `resume`.
/// The `WebSocketConnectionHandler` feeds it whole messages and keeps its `Phase`.
struct WebSocketSession: Sendable {
    let server: SessionServer
    let connection: ClientConnection
    let logger: Logger

    /// Where the conversation is.
    enum Phase: Sendable {
        case awaitingJoin
        case joined(SessionActor, UserID)
    }

    /// What the socket hands over.
    enum Inbound: Sendable {
        case text(ByteBuffer)
        case binary
        /// The socket closed: the seat is held for the reconnect grace.
        case closed
    }

    func handle(_ inbound: Inbound, phase: Phase) async -> Phase {
        switch inbound {
        case .text(let bytes):
            return await handle(Data(bytes.readableBytesView), phase: phase, connection: connection)
        case .binary:
            send(.error(re: nil, ErrorBody(CaucusError(.binaryFrame, "Frames are JSON text; binary frames are refused."))), on: connection)
            return phase
        case .closed:
            if case .joined(let session, let user) = phase { await session.connectionClosed(user, connection: connection) }
            connection.close(.normal, reason: "Goodbye.")
            return .awaitingJoin
        }
    }

    private func handle(_ data: Data, phase: Phase, connection: ClientConnection) async -> Phase {
        let started = ContinuousClock.now
        defer { server.metrics.requestLatency.recordInterval(ContinuousClock.now - started) }
        let frame: ClientFrame
        do {
            frame = try ClientFrame.decode(data)
        } catch {
            send(.error(re: error.id, ErrorBody(error.error)), on: connection)
            return phase
        }
        do {
            switch (phase, frame.request) {
            case (.awaitingJoin, .join(let arguments)):
                return try await join(arguments, id: frame.id, connection: connection)
            case (.awaitingJoin, .resume(let arguments)):
                return try await resume(arguments, id: frame.id, connection: connection)
            case (.awaitingJoin, .ping):
                send(.reply(re: frame.id, result: .pong(seq: nil, sent: nil)), on: connection)
            case (.joined(let session, let user), .ping(let after)):
                send(.reply(re: frame.id, result: await session.ping(from: user, after: after)), on: connection)
            case (.awaitingJoin, _):
                throw CaucusError(.notJoined, "Join (or resume) first: the first frame must be \"join\" or \"resume\".")
            case (.joined, .join), (.joined, .resume):
                throw CaucusError(.alreadyJoined, "This connection has already joined.")
            case (.joined(let session, let user), .command(let command)):
                do {
                    let reply = SessionActor.ReplyTarget(connection: connection, requestID: frame.id)
                    // The session answers after the command's last event; a command with none is answered here.
                    if try await session.perform(command, by: .user(user), reply: reply) == nil {
                        send(.reply(re: frame.id, result: .done(seq: nil)), on: connection)
                    }
                    if case .leave = command { connection.close(.left, reason: "You left the session.") }
                } catch {
                    send(.error(re: frame.id, ErrorBody(error, status: CaucusError.failureStatus(of: command))), on: connection)
                }
            case (.joined(let session, let user), .updateSettings(let change)):
                let reply = SessionActor.ReplyTarget(connection: connection, requestID: frame.id)
                if try await session.settingsChange(change, by: .user(user), reply: reply) == nil {
                    send(.reply(re: frame.id, result: .done(seq: nil)), on: connection)
                }
            case (.joined(let session, let user), .mediaOffer(let sdp, let screenShareMids)):
                let key = MediaPeerKey(session: session.id, user: user)
                let answer = try await server.media.answer(offer: sdp, for: key, screenShareMids: Set(screenShareMids))
                // The user may have left while the peer was being made: then it goes at once.
                guard await session.state.users[user] != nil else {
                    server.media.drop(key)
                    throw CaucusError(.notJoined, "You are no longer in the session.")
                }
                send(.reply(re: frame.id, result: .mediaAnswer(sdp: answer.sdp)), on: connection)
                // The new peer's slots are filled from the session as it is now; while nobody
                // publishes there is no routing to send the map, so it goes from here, empty.
                let routed = await session.routeMedia(offeredBy: user, peer: answer.peer)
                if !routed { send(.mediaSlots(answer.emptySlots), on: connection) }
            case (.joined(let session, let user), .iceServers):
                let relays = server.configuration.turn?.iceServers(session: session.id, user: user, at: server.clock()) ?? []
                send(.reply(re: frame.id, result: .iceServers(relays)), on: connection)
            case (.joined(let session, let user), .query(let query)):
                send(.reply(re: frame.id, result: try await session.answer(query, for: user)), on: connection)
            }
        } catch let error as CaucusError {
            send(.error(re: frame.id, ErrorBody(error)), on: connection)
        } catch let other as ServedElsewhere {
            let error = CaucusError(.otherNode, "Another node serves this session: send the same request to \(other.node.webSocketURL).")
            send(.error(re: frame.id, ErrorBody(error, url: other.node.webSocketURL)), on: connection)
        } catch {
            logger.error("request \(frame.id) failed: \(error)")
            send(.error(re: frame.id, ErrorBody(.serverFailure)), on: connection)
        }
        // A refused join or resume may be tried again (a password): the deadline starts over.
        if case .awaitingJoin = phase, frame.request.joinsOrResumes { connection.joinRefused() }
        return phase
    }

    private func join(_ arguments: JoinArguments, id: Int, connection: ClientConnection) async throws -> Phase {
        let now = server.clock()
        let token = try server.verifier.verify(arguments.token, sessionName: arguments.session, now: now)
        guard let app = server.apps[token.appKey] else { throw CaucusError(.unknownApp, "Unknown app.") }
        try await server.refuseReplacedHostLink(token, session: arguments.session)
        let guesses = PasswordAttempts.Key(
            app: app.key, session: SessionName.key(arguments.session), address: connection.channel.remoteAddress?.ipAddress ?? "unknown")
        try server.refuseTooManyPasswords(guesses, session: arguments.session, at: now)
        let request = JoinRequest(
            sessionName: arguments.session, userName: arguments.userName, claim: token.role, password: arguments.password,
            userIdentity: token.userIdentity, sessionKey: token.sessionKey)
        // A session may end between finding it and joining it; then the name is free for a new one.
        for attempt in 1...2 {
            let session: SessionActor
            let placement: SessionPlacement
            do {
                placement = try await server.router.placeJoin(app: app, name: arguments.session, at: now)
            } catch let refusal as CaucusError {
                // A refusal in the protocol's words (the app's session limit), not a failure.
                throw refusal
            } catch {
                logger.error("session \"\(arguments.session)\" could not be created: \(error)")
                throw CaucusError.serverFailure
            }
            switch placement {
            case .here(let local): session = local
            case .elsewhere(let node): throw ServedElsewhere(node: node)
            }
            do {
                let user = try await session.join(request, requestID: id, connection: connection)
                server.metrics.joins.increment()
                if arguments.password != nil { server.passwordAttempts.withLockedValue { $0.succeeded(guesses) } }
                return .joined(session, user)
            } catch {
                if error.code == .passwordWrong { server.passwordAttempts.withLockedValue { $0.failed(guesses, now: now) } }
                await server.registry.discardIfUnstarted(session)
                if error.code == .sessionEnded && attempt == 1 { continue }
                if await session.lostNameRace && attempt == 1 {
                    // Several nodes: another node opened this name first; place the join again.
                    await server.registry.closed(session.id)
                    continue
                }
                throw error
            }
        }
        throw CaucusError(.sessionEnded, "The session ended while joining; join again.")
    }

    private func resume(_ arguments: ResumeArguments, id: Int, connection: ClientConnection) async throws -> Phase {
        let refused = CaucusError(.resumeRefused, "This resume secret names no live seat; join again.")
        guard let seat = server.secrets.seat(of: arguments.secret) else { throw refused }
        let placement: SessionPlacement?
        do {
            placement = try await server.router.place(seat.session)
        } catch {
            logger.error("session \(seat.session) could not be found or taken over: \(error)")
            throw CaucusError.serverFailure
        }
        switch placement {
        case nil: throw refused
        case .elsewhere(let node): throw ServedElsewhere(node: node)
        case .here(let session):
            try await session.resume(seat.user, after: arguments.lastSeq, requestID: id, connection: connection)
            return .joined(session, seat.user)
        }
    }

    /// A request read behind one the store failed on (or behind the session's move) is
    /// answered that it did not take effect, like the commands waiting for the store.
    func unhandled(_ inbound: Inbound) -> ByteBuffer? {
        guard case .text(let bytes) = inbound else { return nil }
        let id: Int?
        do {
            id = try ClientFrame.decode(Data(bytes.readableBytesView)).id
        } catch {
            id = error.id
        }
        guard let id else { return nil }
        let error = CaucusError(.internalError, "The session stopped before this request was handled: it did not take effect; reconnect.")
        return SessionActor.encode(.error(re: id, ErrorBody(error)), with: .caucus)
    }

    private func send(_ frame: ServerFrame, on connection: ClientConnection) {
        let bytes = SessionActor.encode(frame, with: .caucus)
        switch frame {
        case .reply(let id, _), .error(let id?, _): connection.answer(bytes, to: id)
        default: connection.send(bytes)
        }
    }
}

/// Several nodes: the session a join or resume named is served by `node`; the client is sent
/// there (`otherNode`, with the node's URL) rather than relayed, so that its socket, its
/// replies and its media all go to the node that has the session.
struct ServedElsewhere: Error {
    let node: NodeID
}

extension Request {
    /// Whether the request is a `join` or a `resume`.
    fileprivate var joinsOrResumes: Bool {
        switch self {
        case .join, .resume: true
        default: false
        }
    }
}
