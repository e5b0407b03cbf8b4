import Foundation

/// The one address students and other machines reach the server at (`--public-url`):
/// `https://class.example.org` or `https://class.example.org:8443`. Invite links, the node's
/// URL and the announced media address follow from it unless given on their own.
public struct PublicURL: Sendable, Hashable, CustomStringConvertible {
    /// `https` or `http`.
    public let scheme: String
    /// A DNS name or an IP literal (an IPv6 one without brackets).
    public let host: String
    /// The port, when the URL names one.
    public let port: Int?

    public init(_ text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil,
            url.user == nil, url.password == nil
        else {
            throw ServerConfigurationError(
                "The public URL is https://host or https://host:port (the address students open), with no path: not \(text).")
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw ServerConfigurationError("The public URL's port is 1 to 65535: not \(text).")
        }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port
    }

    /// The port browsers use: the one named, or the scheme's.
    public var effectivePort: Int { port ?? (scheme == "https" ? 443 : 80) }

    /// `scheme://host[:port]`, without a trailing slash: what paths are appended to.
    public var origin: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)" + (port.map { ":\($0)" } ?? "")
    }

    /// The WebSocket URL of this server under this name.
    public var webSocketURL: String { (scheme == "https" ? "wss" : "ws") + origin.drop { $0 != ":" } + "/ws" }

    public var description: String { origin }
}
