import CaucusAuth
import CaucusCore
import Foundation
import Hummingbird
import HummingbirdCore

/// The web console: static files under `/console/`, and development helpers under
/// `/console/dev` that only a server on its development app answers.
extension SessionServer {
    func addConsoleRoutes(to router: Router<BasicRequestContext>) {
        let assets = ConsoleAssets.bundled
        router.get("/") { _, _ in Self.redirect(to: "/console/") }
        router.get("/console") { request, _ in
            // Served as "/console" the page's relative module imports would resolve from "/".
            request.uri.path.hasSuffix("/") ? Self.asset("index.html", in: assets) : Self.redirect(to: "/console/")
        }
        router.get("/console/:file") { _, context in
            Self.asset(context.parameters.get("file") ?? "", in: assets)
        }
        router.get("/console/dev") { _, _ in
            Self.json(DevelopmentStatus(development: self.developmentApp != nil, publicURL: self.configuration.publicURL?.origin))
        }
        router.post("/console/dev/session") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            do {
                let asked = try await ConsoleRequestBody.decode(ConsoleSessionRequest.self, from: request, limit: self.configuration.maxFrameBytes)
                // A live session's host link is the only way to host it: handing out a new host
                // code for it would let anyone with its name take the host role back.
                if try await self.isLive(asked.session, of: app) {
                    return Self.conflict(CaucusError(.sessionAlreadyLive, "A session named \(asked.session) is running: open its host link, or choose another name."))
                }
                let now = self.clock()
                return Self.json(
                    ConsoleSessionInvites(
                        session: asked.session, hostInvite: try ConsoleInvites.code(for: asked.session, role: .host, app: app, at: now),
                        participantInvite: try ConsoleInvites.code(for: asked.session, role: .participant, app: app, at: now)))
            } catch let error as CaucusError {
                return Self.failure(error, status: nil)
            }
        }
        router.post("/console/dev/person") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            do {
                let asked = try await ConsoleRequestBody.decode(ConsolePersonRequest.self, from: request, limit: self.configuration.maxFrameBytes)
                let now = self.clock()
                // Only the host link makes personal links: a participant cannot make more people.
                guard (try? ConsoleInvites.role(of: asked.invite, session: asked.session, app: app, at: now)) == .host else {
                    throw CaucusError(.hostInviteRequired, "Only the host link of \(asked.session) makes personal links.")
                }
                let invite = try ConsolePersonalLinks.code(for: asked.session, name: asked.name, app: app, at: now)
                return Self.json(ConsolePersonInvite(session: asked.session, name: asked.name, invite: invite))
            } catch let error as CaucusError {
                return Self.failure(error, status: nil)
            } catch {
                return Self.failure(CaucusError(.internalError, "Could not make a personal link."), status: nil)
            }
        }
        router.post("/console/dev/token") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            do {
                let asked = try await ConsoleRequestBody.decode(ConsoleTokenRequest.self, from: request, limit: self.configuration.maxFrameBytes)
                let now = self.clock()
                if let name = asked.name {
                    return try await self.personalToken(asked, name: name, app: app, at: now)
                }
                let role = try ConsoleInvites.role(of: asked.invite, session: asked.session, app: app, at: now)
                // Whoever joins a session that is not running creates it and hosts it: a
                // participant's link waits for the host instead.
                if role == .participant, try await !self.isLive(asked.session, of: app) {
                    return Self.conflict(CaucusError(.sessionNotOpenYet, "\(asked.session) has not been opened by its host yet."))
                }
                // A participant's seat is this browser's, so that a removed person stays out.
                let identity = role == .participant ? ConsoleSeatIdentity.identity(forBrowser: asked.browser) : nil
                let token = try TokenMinter.mint(app: app, sessionName: asked.session, role: role, issuedAt: now, userIdentity: identity)
                return Self.json(ConsoleToken(token: token, role: role == .host ? "host" : "participant"))
            } catch let error as CaucusError {
                return Self.failure(error, status: nil)
            } catch {
                return Self.failure(CaucusError(.internalError, "Could not mint a token."), status: nil)
            }
        }
    }

    /// A personal link's token: a participant's, with the person's id as its identity, unless
    /// the person has a seat or another browser is on its way in with the same link.
    private func personalToken(_ asked: ConsoleTokenRequest, name: String, app: AppCredentials, at now: Instant) async throws -> Response {
        let person = try ConsolePersonalLinks.person(of: asked.invite, session: asked.session, name: name, app: app, at: now)
        guard try await isLive(asked.session, of: app) else {
            return Self.conflict(CaucusError(.sessionNotOpenYet, "\(asked.session) has not been opened by its host yet."))
        }
        let inUse = CaucusError(
            .personalLinkInUse,
            "\(name) is in \(asked.session) from another browser: one link is one person. Go on in that browser, or ask the host for a link of your own.")
        if let session = await registry.session(app: app.key, named: asked.session),
            await session.view().users.contains(where: { $0.identity == person })
        {
            return Self.conflict(inUse)
        }
        // Without an id, a browser is never taken for the one that asked before.
        guard personalClaims.claim(person, by: asked.browser ?? UUID().uuidString, at: now) else { return Self.conflict(inUse) }
        let token = try TokenMinter.mint(app: app, sessionName: asked.session, role: .participant, issuedAt: now, userIdentity: person)
        return Self.json(ConsoleToken(token: token, role: "participant", name: name))
    }

    private func isLive(_ session: String, of app: AppCredentials) async throws -> Bool {
        try await liveSessions(of: app).contains { SessionName.matches($0.name, session) }
    }

    private static func conflict(_ error: CaucusError) -> Response {
        var response = failure(error, status: nil)
        response.status = .conflict
        return response
    }

    private static func asset(_ name: String, in assets: ConsoleAssets) -> Response {
        guard let asset = assets[name] else {
            return failure(CaucusError(.notFound, "No console file named \(name)."), status: nil)
        }
        // The console changes with the server: always revalidate rather than run stale modules.
        return Response(
            status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"], body: .init(byteBuffer: asset.bytes))
    }

    private static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location])
    }

    private static func developmentOff() -> Response {
        failure(CaucusError(.notFound, "Development helpers are off: this server does not run on its development app."), status: nil)
    }
}

/// The console's paths and their methods, as `addConsoleRoutes` registers them, for the 405
/// answers of `ControlRouteTable` (a test checks that the router agrees).
enum ConsoleRoutes {
    static let methods: [String: Set<String>] = [
        "/": ["GET"], "/console": ["GET"], "/console/{file}": ["GET"], "/console/dev": ["GET"], "/console/dev/session": ["POST"],
        "/console/dev/token": ["POST"], "/console/dev/person": ["POST"],
    ]
}
