import CaucusAuth
import CaucusCore
import CaucusStore
import Foundation
import Hummingbird
import HummingbirdCore

/// The console's class endpoints: making a class (development app), and turning a class
/// link's code into a join token, a personal link or a new host link (any app: the codes
/// name it). Every refusal changes nothing.
extension SessionServer {
    /// Join tokens the console hands out live long enough to join (a password typed), not
    /// longer: a token kept after its class ended must not open a session of the same name.
    static let consoleTokenLifetimeSeconds = Int(ConsoleClassBook.openingMilliseconds / 1000)

    /// `POST /console/class`: a new class of a name nothing runs under; its codes, once.
    func createClass(_ request: Request, app: AppCredentials) async -> Response {
        await answering { () async throws(CaucusError) -> Response in
            let asked = try await ConsoleRequestBody.decode(ConsoleSessionRequest.self, from: request, limit: self.configuration.maxFrameBytes)
            let now = self.clock()
            // The codes are made first: a name the session would refuse refuses the class.
            let id = ConsoleClassCodes.newClassID()
            let host = try ConsoleClassCodes.code(session: asked.session, classID: id, role: .host, app: app, at: now)
            let participant = try ConsoleClassCodes.code(session: asked.session, classID: id, role: .participant, app: app, at: now)
            let running = try await self.running(asked.session, classID: id, of: app)
            _ = try await self.consoleClasses.open(id, app: app.key, session: asked.session, running: running, at: now)
            return Self.json(ConsoleSessionInvites(session: asked.session, class: id, hostInvite: host, participantInvite: participant))
        }
    }

    /// `POST /console/token`: a join token of the code's role for the code's class, if it runs
    /// (a participant) or may open (its host).
    func classToken(_ request: Request, apps: [AppCredentials]) async -> Response {
        await answering { () async throws(CaucusError) -> Response in
            let asked = try await ConsoleRequestBody.decode(ConsoleTokenRequest.self, from: request, limit: self.configuration.maxFrameBytes)
            let now = self.clock()
            if let name = asked.name { return try await self.personalToken(asked, name: name, apps: apps, at: now) }
            let code = try ConsoleClassCodes.verify(asked.invite, session: asked.session, apps: apps, at: now)
            let app = try self.app(of: code.app, in: apps, session: asked.session)
            try await self.checkHostGeneration(code, session: asked.session)
            let running = try await self.running(asked.session, classID: code.classID, of: app)
            let standing = try await self.consoleClasses.standing(
                of: code.classID, app: app.key, session: asked.session, running: running, adopt: code.role == .host, at: now
            ).standing
            try Self.refuse(standing, session: asked.session, waiting: code.role == .participant)
            guard code.role == .host else {
                // A participant's seat is this browser's, so that a removed person stays out.
                let identity = ConsoleSeatIdentity.identity(forBrowser: asked.browser)
                // Its session_key is the class: a token kept past the class opens no later one.
                let token = try Self.mint(app: app, session: asked.session, role: .participant, at: now, identity: identity, classID: code.classID)
                return Self.json(ConsoleToken(token: token, role: "participant", class: code.classID))
            }
            let identity = ConsoleClassCodes.hostIdentity(of: code.classID)
            if standing == .running, asked.takeOver != true,
                let session = await self.registry.session(app: app.key, named: asked.session),
                await session.state.host?.identity == identity
            {
                throw CaucusError(
                    .hostSeatTaken,
                    "The host of \(asked.session) is in the class from another browser. Take the host seat over? That browser leaves the class.")
            }
            if standing == .notOpen { try await self.consoleClasses.started(code.classID, app: app.key, session: asked.session, at: now) }
            // The link's generation goes with the token: a replaced link's tokens stop at the join too.
            let token = try Self.mint(
                app: app, session: asked.session, role: .host, at: now, identity: identity, classID: code.classID,
                hostLinkGeneration: code.generation ?? 0)
            let participants = try ConsoleClassCodes.code(session: asked.session, classID: code.classID, role: .participant, app: app, at: now)
            return Self.json(ConsoleToken(token: token, role: "host", class: code.classID, participantInvite: participants))
        }
    }

    /// `POST /console/person`: a personal link for the class, made with its host link's code.
    func createPersonalLink(_ request: Request, apps: [AppCredentials]) async -> Response {
        await answering { () async throws(CaucusError) -> Response in
            let asked = try await ConsoleRequestBody.decode(ConsolePersonRequest.self, from: request, limit: self.configuration.maxFrameBytes)
            let now = self.clock()
            // Only the host link makes personal links: a participant cannot make more people.
            let (code, app) = try await self.hostsClass(asked.invite, session: asked.session, apps: apps, doing: "makes personal links", at: now)
            let invite = try ConsolePersonalLinks.code(for: asked.session, classID: code.classID, name: asked.name, app: app, at: now)
            return Self.json(ConsolePersonInvite(session: asked.session, name: asked.name, invite: invite))
        }
    }

    /// `POST /console/host-link`: the host replaces its host link; the old one is refused from now.
    func replaceHostLink(_ request: Request, apps: [AppCredentials]) async -> Response {
        await answering { () async throws(CaucusError) -> Response in
            let asked = try await ConsoleRequestBody.decode(ConsoleHostLinkRequest.self, from: request, limit: self.configuration.maxFrameBytes)
            let now = self.clock()
            let (code, app) = try await self.hostsClass(asked.invite, session: asked.session, apps: apps, doing: "replaces it", at: now)
            guard let record = try await self.consoleClasses.replaceHostLink(of: code.classID, app: app.key, session: asked.session) else { throw Self.classEnded(asked.session) }
            // The new link ends with the class's record, not 48 hours from now (docs/console.md).
            let invite = try ConsoleClassCodes.code(
                session: asked.session, classID: code.classID, role: .host, generation: record.hostGeneration, app: app, at: now,
                lifetimeSeconds: ConsoleClassBook.hostCodeLifetime(of: record, at: now))
            return Self.json(ConsoleHostLink(session: asked.session, class: code.classID, hostInvite: invite))
        }
    }

    /// The class a host link's code is for, and its app, while the class has not ended: 2018
    /// for any other code, 1024 for a replaced host link, 1023 for an ended class.
    private func hostsClass(
        _ invite: String, session: String, apps: [AppCredentials], doing what: String, at now: Instant
    ) async throws(CaucusError) -> (ConsoleClassCodes.Verified, AppCredentials) {
        guard let code = try? ConsoleClassCodes.verify(invite, session: session, apps: apps, at: now), code.role == .host else {
            throw CaucusError(.hostInviteRequired, "Only the host link of \(session) \(what).")
        }
        let app = try self.app(of: code.app, in: apps, session: session)
        try await checkHostGeneration(code, session: session)
        let running = try await self.running(session, classID: code.classID, of: app)
        if try await consoleClasses.standing(of: code.classID, app: app.key, session: session, running: running, adopt: true, at: now).standing == .ended {
            throw Self.classEnded(session)
        }
        return (code, app)
    }

    /// A personal link's token: a participant's, with the person's id as its identity, while
    /// its class runs, unless the person has a seat or another browser is on its way in.
    private func personalToken(_ asked: ConsoleTokenRequest, name: String, apps: [AppCredentials], at now: Instant) async throws(CaucusError) -> Response {
        let (person, classID, appKey) = try ConsolePersonalLinks.person(of: asked.invite, session: asked.session, name: name, apps: apps, at: now)
        let app = try self.app(of: appKey, in: apps, session: asked.session)
        let running = try await self.running(asked.session, classID: classID, of: app)
        let standing = try await consoleClasses.standing(of: classID, app: app.key, session: asked.session, running: running, adopt: false, at: now).standing
        try Self.refuse(standing, session: asked.session, waiting: true)
        let inUse = CaucusError(
            .personalLinkInUse,
            "\(name) is in \(asked.session) from another browser: one link is one person. Go on in that browser, or ask the host for a link of your own.")
        if let session = await registry.session(app: app.key, named: asked.session),
            await session.state.users.values.contains(where: { $0.identity == person })
        {
            throw inUse
        }
        // Without an id, a browser is never taken for the one that asked before.
        guard personalClaims.claim(person, by: asked.browser ?? UUID().uuidString, at: now) else { throw inUse }
        let token = try Self.mint(app: app, session: asked.session, role: .participant, at: now, identity: person, classID: classID)
        return Self.json(ConsoleToken(token: token, role: "participant", class: classID, name: name))
    }

    /// What runs under `session` now: nothing, the class `classID`, or another session. A
    /// session still being made by its first join counts as nothing yet.
    func running(_ session: String, classID: String, of app: AppCredentials) async throws(CaucusError) -> ConsoleClassBook.Running {
        if let actor = await registry.session(app: app.key, named: session) {
            let state = await actor.state
            guard state.lifecycle == .live else { return .nothing }
            return state.sessionKey == classID ? .thisClass : .anotherSession
        }
        // Several nodes: a session served elsewhere runs as the class its first event names.
        do {
            if configuration.cluster != nil, let shared = store as? any ClusterStore {
                guard let started = try await shared.liveSessionStart(app: app.key, nameKey: SessionName.key(session)) else { return .nothing }
                return started.sessionKey == classID ? .thisClass : .anotherSession
            }
            return try await liveSessions(of: app).contains { SessionName.matches($0.name, session) } ? .anotherSession : .nothing
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not list the live sessions: \(error)")
        }
    }

    private func app(of key: String, in apps: [AppCredentials], session: String) throws(CaucusError) -> AppCredentials {
        guard let app = apps.first(where: { $0.key == key }) else {
            throw CaucusError(.inviteInvalid, "This invite link is not valid for \(session): ask the host for a new one.")
        }
        return app
    }

    /// A host code of an older generation was replaced (1024); a record of another session is
    /// not this link's class.
    private func checkHostGeneration(_ code: ConsoleClassCodes.Verified, session: String) async throws(CaucusError) {
        guard let record = try await consoleClasses.record(code.classID) else { return }
        guard record.app == code.app, SessionName.matches(record.session, session) else {
            throw CaucusError(.inviteInvalid, "This invite link is not valid for \(session): ask the host for a new one.")
        }
        guard let generation = code.generation, generation != record.hostGeneration else { return }
        if generation < record.hostGeneration {
            throw Self.hostLinkReplaced(session)
        }
        throw CaucusError(.inviteInvalid, "This invite link is not valid for \(session): ask the host for a new one.")
    }

    private static func refuse(_ standing: ConsoleClassBook.Standing, session: String, waiting: Bool) throws(CaucusError) {
        switch standing {
        case .running: return
        case .ended: throw classEnded(session)
        case .nameTaken:
            throw CaucusError(.sessionAlreadyLive, "Another class named \(session) is running: this link is not for it.")
        case .notOpen:
            if waiting { throw CaucusError(.sessionNotOpenYet, "\(session) has not been opened by its host yet.") }
        }
    }

    /// 1024: the link (or a token given for it) was replaced; at the join too (`ConsoleHostTokens.swift`).
    static func hostLinkReplaced(_ session: String) -> CaucusError {
        CaucusError(.hostLinkReplaced, "This host link of \(session) was replaced by a newer one: open the newest host link.")
    }

    private static func classEnded(_ session: String) -> CaucusError {
        CaucusError(.classEnded, "This class of \(session) has ended: its links open nothing. Ask the host for the links of a new class.")
    }

    private static func mint(
        app: AppCredentials, session: String, role: RoleClaim, at now: Instant, identity: String? = nil, classID: String? = nil,
        hostLinkGeneration: Int? = nil
    ) throws(CaucusError) -> String {
        do {
            return try TokenMinter.mint(
                app: app, sessionName: session, role: role, issuedAt: now, lifetimeSeconds: consoleTokenLifetimeSeconds,
                userIdentity: identity, sessionKey: classID, hostLinkGeneration: hostLinkGeneration)
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not mint a token.")
        }
    }

    /// Runs an endpoint, answering a refusal with its code and HTTP status.
    private func answering(_ body: () async throws(CaucusError) -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            var response = Self.failure(error, status: nil)
            switch error.code {
            case .sessionAlreadyLive, .sessionNotOpenYet, .personalLinkInUse, .hostSeatTaken: response.status = .conflict
            case .classEnded: response.status = .gone
            case .hostLinkReplaced: response.status = .forbidden
            default: break
            }
            return response
        }
    }
}
