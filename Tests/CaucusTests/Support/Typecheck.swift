import Foundation

/// Typechecks a Swift file as an app would compile it: against the modules this build made,
/// with only the imports the file writes. For what an app can and cannot reach through
/// `import Caucus`, which a test inside this package (whose target imports more) cannot show.
enum Typecheck {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Result {
        let succeeded: Bool
        let output: String
    }

    static func run(_ source: String) throws -> Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-typecheck-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try swiftc(["-typecheck"] + buildModules() + [file.path])
    }

    /// The arguments that find the modules as this build made them, and the C modules' maps
    /// and headers they need.
    static func buildModules() throws -> [String] {
        let build = root.appendingPathComponent(".build/debug").resolvingSymlinksInPath()
        var arguments = ["-I", build.appendingPathComponent("Modules").path]
        for entry in try FileManager.default.contentsOfDirectory(atPath: build.path) where entry.hasSuffix(".build") {
            let map = build.appendingPathComponent(entry).appendingPathComponent("module.modulemap")
            if FileManager.default.fileExists(atPath: map.path) { arguments += ["-Xcc", "-fmodule-map-file=" + map.path] }
        }
        let walker = FileManager.default.enumerator(at: root.appendingPathComponent(".build/checkouts"), includingPropertiesForKeys: [.isDirectoryKey])
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == "include", (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                arguments += ["-Xcc", "-I" + url.path]
            }
        }
        return arguments
    }

    /// Runs `swiftc` with `arguments`.
    static func swiftc(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(succeeded: process.terminationStatus == 0, output: text)
    }
}
