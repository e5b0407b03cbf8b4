import Foundation
import NIOCore

/// The web console's files (HTML, CSS, ES modules), read once from the target's resource
/// bundle and served from memory.
///
/// Serving only names found in this table, never a path built from the request, is what
/// keeps `/console/../Package.swift` and its encoded forms from reaching the disk.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let contentType: String
    }

    let files: [String: Asset]

    /// The assets shipped with this build; empty (every asset 404) if the bundle is missing.
    static let bundled = ConsoleAssets(folder: bundledFolder())

    /// The resource bundle SwiftPM puts beside the executable (`caucus`, or the test runner).
    ///
    /// Looked up by hand rather than through `Bundle.module`, whose accessor stops the
    /// process when the bundle is missing: a `caucus` copied without it must still serve
    /// everything but the console.
    static func bundledFolder() -> URL? {
        let places = [
            Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent(),
            // On macOS a test bundle's resources sit beside the .xctest, not the runner.
            Bundle(for: BundleMarker.self).bundleURL.deletingLastPathComponent(),
        ].compactMap { $0 }
        for place in places {
            for name in ["Caucus_CaucusServer.resources", "Caucus_CaucusServer.bundle"] {
                let candidate = place.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: candidate.path),
                    let folder = Bundle(url: candidate)?.url(forResource: "Assets", withExtension: nil)
                else { continue }
                return folder
            }
        }
        return nil
    }

    init(folder: URL?) {
        var files: [String: Asset] = [:]
        let names = folder.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0.path) } ?? []
        for name in names {
            guard let folder, let type = Self.contentType(of: name),
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { continue }
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

/// A class of this module, for `Bundle(for:)`.
private final class BundleMarker {}
