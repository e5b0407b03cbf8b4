import Hummingbird
import HummingbirdCore
import NIOConcurrencyHelpers
import ServiceLifecycle

/// `--http-redirect-port`: a plain HTTP listener that answers every request 308 to the same
/// path and query on the HTTPS URL: the public URL's origin when there is one, else the host
/// the request named on the TLS port.
struct HTTPSRedirectResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let publicURL: PublicURL?
    /// The HTTPS port, once bound.
    let httpsPort: @Sendable () -> Int

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let base = base(for: request.head.authority) else {
            return Response(status: .badRequest, headers: [.contentLength: "0", .connection: "close"])
        }
        let path = request.head.path ?? "/"
        return Response(
            status: .permanentRedirect,
            headers: [.location: base + (path.hasPrefix("/") ? path : "/"), .contentLength: "0"])
    }

    /// `https://host[:port]`, or nil when the request named no usable host.
    func base(for authority: String?) -> String? {
        if let publicURL, publicURL.scheme == "https" { return publicURL.origin }
        guard let host = authority.flatMap(Self.host(of:)) else { return nil }
        let port = httpsPort()
        return "https://\(host)" + (port == 443 ? "" : ":\(port)")
    }

    /// The host of a `Host` header (`name`, `name:port`, `[v6]:port`), if it is one: letters,
    /// digits, dots and hyphens, or a bracketed IPv6 literal. Nothing else reaches a Location.
    static func host(of authority: String) -> String? {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return nil }
            let literal = host[host.index(after: host.startIndex)..<end]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            return "[\(literal)]"
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
        return String(host)
    }
}

/// The port a listener bound, for whoever waits for it (the redirect needs the HTTPS port,
/// which `--port 0` picks at start).
final class BoundPort: Sendable {
    private let port = NIOLockedValueBox<Int?>(nil)

    func set(_ value: Int) { port.withLockedValue { $0 = value } }

    /// The port; 0 before it is bound.
    var value: Int { port.withLockedValue { $0 } ?? 0 }

    /// Waits for the port (a few polls at start); throws when the waiting task is cancelled.
    func bound() async throws -> Int {
        while true {
            if let value = port.withLockedValue({ $0 }) { return value }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The redirect listener, started once the HTTPS port is bound (its Location names it).
struct HTTPSRedirectService<Redirect: Service>: Service {
    let httpsPort: BoundPort
    let application: Redirect

    func run() async throws {
        _ = try await httpsPort.bound()
        try await application.run()
    }
}
