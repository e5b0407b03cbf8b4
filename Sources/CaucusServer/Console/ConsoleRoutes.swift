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
            Self.json(DevelopmentStatus(development: self.developmentApp != nil))
        }
        router.get("/console/dev/app") { _, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            return Self.json(["key": app.key, "secret": app.secret])
        }
        router.post("/console/dev/token") { request, _ in
            guard let app = self.developmentApp else { return Self.developmentOff() }
            do {
                let body = try await request.body.collect(upTo: self.configuration.maxFrameBytes)
                let asked = try DevelopmentTokenRequest.decode(Data(buffer: body))
                return Self.json(DevelopmentToken(token: try asked.mint(for: app, at: self.clock()), appKey: app.key))
            } catch let error as CaucusError {
                return Self.failure(error, status: nil)
            }
        }
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
        "/": ["GET"], "/console": ["GET"], "/console/{file}": ["GET"], "/console/dev": ["GET"], "/console/dev/app": ["GET"],
        "/console/dev/token": ["POST"],
    ]
}
