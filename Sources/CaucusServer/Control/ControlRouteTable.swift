import Foundation
import HTTPTypes

/// Which methods each path of the server takes: the OpenAPI document's paths, and the web
/// console's. The router answers a path it has with a method it lacks as if the path did not
/// exist; this table lets that answer be 405 with an `Allow` header. Reading the API's paths
/// from its OpenAPI document keeps the two from disagreeing; a test checks the router agrees.
enum ControlRouteTable {
    /// Paths with `{name}` for a path parameter, and the methods each takes.
    static let routes: [(path: [Substring], methods: [HTTPRequest.Method])] = {
        var table: [String: Set<String>] = ConsoleRoutes.methods
        let document = try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any]
        for (path, item) in (document?["paths"] as? [String: Any]) ?? [:] {
            let methods = ((item as? [String: Any]) ?? [:]).keys.filter { $0 != "parameters" }.map { $0.uppercased() }
            table[path, default: []].formUnion(methods)
        }
        return table.map { path, methods in (path.split(separator: "/"), methods.sorted().compactMap { HTTPRequest.Method($0) }) }
    }()

    /// The methods `path` takes, or `nil` when the server has no such path.
    static func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        let matching = routes.filter { route in
            route.path.count == segments.count
                && zip(route.path, segments).allSatisfy { pattern, segment in pattern.first == "{" || pattern == segment }
        }
        guard !matching.isEmpty else { return nil }
        // A literal path ("/console/dev") wins over a parameter ("/console/{file}").
        let exact = matching.filter { route in !route.path.contains { $0.first == "{" } }
        return (exact.isEmpty ? matching : exact).first?.methods
    }
}
