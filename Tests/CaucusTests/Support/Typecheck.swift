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

    /// `asLibrary`: as a file of an app's own library module in Swift 6 mode (where a public
    /// declaration may only use types from modules the file imports), rather than an app's
    /// main file.
    static func run(_ source: String, asLibrary: Bool = false) async throws -> Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-typecheck-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let library = asLibrary ? ["-swift-version", "6", "-parse-as-library", "-module-name", "AppLibrary"] : []
        return try await swiftc(["-typecheck"] + library + buildModules() + [file.path])
    }

    /// One public declaration of a built module, from its symbol graph.
    struct Symbol {
        /// Its name, with the types it is nested in (`CaucusUser.role`).
        let path: String
        /// `swift.property`, `swift.typealias`…
        let kind: String
        /// The type names its declaration shows, as written there.
        let typeNames: [String]
    }

    /// The public declarations of `module` as this build made it, from
    /// `swift-symbolgraph-extract`: what documentation and code completion show an app.
    static func publicSymbols(of module: String) async throws -> [Symbol] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(
            tool: "swift-symbolgraph-extract",
            ["-module-name", module, "-minimum-access-level", "public", "-output-dir", folder.path, "-skip-synthesized-members"]
                + buildModules())
        guard result.succeeded else { throw CannotExtract(output: result.output) }
        var symbols: [Symbol] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix(module + ".") {
            let graph = try JSONDecoder().decode(Graph.self, from: Data(contentsOf: folder.appendingPathComponent(file)))
            for symbol in graph.symbols {
                let names = symbol.declarationFragments?.filter { $0.kind == "typeIdentifier" }.map(\.spelling) ?? []
                symbols.append(Symbol(path: symbol.pathComponents.joined(separator: "."), kind: symbol.kind.identifier, typeNames: names))
            }
        }
        return symbols
    }

    private struct Graph: Decodable {
        struct Fragment: Decodable {
            let kind: String
            let spelling: String
        }

        struct Kind: Decodable {
            let identifier: String
        }

        struct Entry: Decodable {
            let kind: Kind
            let pathComponents: [String]
            let declarationFragments: [Fragment]?
        }

        let symbols: [Entry]
    }

    struct CannotExtract: Error {
        let output: String
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

    /// Runs `swiftc` with `arguments`, one at a time across the test run, without blocking a
    /// thread while it runs. A wait on a process in a test would hold one of the few threads
    /// Swift's concurrency runs on (two on this machine) for seconds, and with several such
    /// tests at once everything else stalls, the servers of the other tests included, until
    /// their calls time out.
    static func swiftc(_ arguments: [String]) async throws -> Result {
        try await run(tool: "swiftc", arguments)
    }

    /// This package's manifest as `swift package dump-package` prints it (JSON), for checks of
    /// what depends on what under which condition. With a scratch folder of its own: the build
    /// folder is locked by the `swift test` that runs this, and the dump needs nothing from it.
    static func packageManifest() async throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("package.json")
        let result = try await run(
            tool: "swift", ["package", "--package-path", root.path, "--scratch-path", folder.appendingPathComponent("scratch").path, "dump-package"],
            standardOutput: json)
        guard result.succeeded else { throw CannotDump(output: result.output) }
        return try Data(contentsOf: json)
    }

    struct CannotDump: Error {
        let output: String
    }

    /// Runs one of the toolchain's tools, as `swiftc` above: its output (`standardOutput`, if
    /// given, takes what it prints on standard output, apart from its diagnostics).
    private static func run(tool: String, _ arguments: [String], standardOutput: URL? = nil) async throws -> Result {
        await gate.enter()
        defer { Task { await gate.leave() } }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-swiftc-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CannotWrite(path: log.path) }
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardError = output
        var printed: FileHandle?
        if let standardOutput {
            guard FileManager.default.createFile(atPath: standardOutput.path, contents: nil) else { throw CannotWrite(path: standardOutput.path) }
            printed = try FileHandle(forWritingTo: standardOutput)
        }
        defer { try? printed?.close() }
        process.standardOutput = printed ?? output
        try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in finished.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                finished.resume(throwing: error)
            }
        }
        try output.close()
        let text = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        return Result(succeeded: process.terminationStatus == 0, output: text)
    }

    struct CannotWrite: Error {
        let path: String
    }

    /// One compiler at a time: each is heavy, and the machine is small and shared.
    private static let gate = Gate()

    private actor Gate {
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func enter() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the gate to the next waiter, if any (it stays busy), else opens it.
        func leave() {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
    }
}
