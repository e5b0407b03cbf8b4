import Foundation
import NIOCore

/// The web console's files (HTML, CSS, ES modules), built into the binary at compile time
/// (the EmbedConsoleAssets plugin) and served from memory: copying `caucus` alone is the
/// whole install, with no resource bundle to lose on the way.
///
/// Serving only names found in this table, never a path built from the request, is what
/// keeps `/console/../Package.swift` and its encoded forms from reaching the disk.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
    }

    let files: [String: Asset]

    /// The assets built into this binary.
    static let bundled = ConsoleAssets(embedded: EmbeddedConsoleAssets.files)

    init(embedded: [(name: String, base64: String)]) {
        var files: [String: Asset] = [:]
        for (name, base64) in embedded {
            guard let type = Self.contentType(of: name), let data = Data(base64Encoded: base64) else { continue }
            files[name] = Asset(bytes: ByteBuffer(bytes: data), contentType: type)
        }
        self.files = files
    }

    subscript(name: String) -> Asset? { files[name] }

    /// The types the console uses. ES modules must come as JavaScript or browsers refuse them;
    /// a file of any other kind is not served at all.
    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        default: nil
        }
    }
}
