import CaucusAuth
import CaucusCore
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdCore

/// The web console: static files under `/console/`, the class links' endpoints (any app: the
/// codes name theirs), and making a class, which only a server on its development app does.
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
        // Making a class is the development app's: with configured apps, `caucus link` makes
        // a class's host link. The old /console/dev paths answer on the development app only.
        router.post("/console/class") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            return await self.createClass(request, app: app)
        }
        router.post("/console/dev/session") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            return await self.createClass(request, app: app)
        }
        router.post("/console/token") { request, _ in await self.classToken(request, apps: self.consoleApps) }
        router.post("/console/dev/token") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            return await self.classToken(request, apps: [app])
        }
        router.post("/console/person") { request, _ in await self.createPersonalLink(request, apps: self.consoleApps) }
        router.post("/console/dev/person") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            return await self.createPersonalLink(request, apps: [app])
        }
        router.post("/console/host-link") { request, _ in await self.replaceHostLink(request, apps: self.consoleApps) }
    }

    /// The apps whose class links the console takes: the configured ones, or the development app.
    var consoleApps: [AppCredentials] {
        apps.values.sorted { $0.key < $1.key }
    }

    private static func asset(_ name: String, in assets: ConsoleAssets) -> Response {
        guard let asset = assets[name] else {
            return failure(CaucusError(.notFound, "No console file named \(name)."), status: nil)
        }
        // The console changes with the server: always revalidate rather than run stale modules.
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "no-cache"]
        headers.append(contentsOf: securityHeaders)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.bytes))
    }

    /// What every console file is served with. The page's address may hold a link's code (a host
    /// link's too): no page it leads to is told the address (`no-referrer`); no other site may
    /// frame the page to have its buttons clicked (`frame-ancestors 'none'`, and the older
    /// header); a file is only ever read as its type (`nosniff`).
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "frame-ancestors 'none'", HTTPField.Name("X-Frame-Options")!: "DENY",
        .xContentTypeOptions: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

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
        "/console/dev/token": ["POST"], "/console/dev/person": ["POST"], "/console/class": ["POST"], "/console/token": ["POST"],
        "/console/person": ["POST"], "/console/host-link": ["POST"],
    ]
}
