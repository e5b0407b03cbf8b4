import CaucusAuth
import Crypto
import Foundation

/// The server's data folder: the database, the key resume secrets are signed with, and on a
/// development setup the development app's credentials.
struct DataDirectory: Sendable {
    let path: String

    var databasePath: String { path + "/caucus.sqlite" }
    var developmentAppPath: String { path + "/" + AppCredentials.developmentFileName }
    private var serverKeyPath: String { path + "/server.key" }

    func create() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The server's signing key, made on first start.
    func serverKey() throws -> SymmetricKey {
        if let text = try? String(contentsOfFile: serverKeyPath, encoding: .utf8),
            let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: .bits256)
        let text = key.withUnsafeBytes { Data($0).base64EncodedString() }
        try Self.writePrivately(text, to: serverKeyPath)
        return key
    }

    /// The development app, made on first start. Returns it and whether it was just made.
    func developmentApp() throws -> (app: AppCredentials, created: Bool) {
        if let data = FileManager.default.contents(atPath: developmentAppPath) {
            return (try JSONDecoder().decode(AppCredentials.self, from: data), false)
        }
        let app = AppCredentials(key: "dev-" + Self.randomToken(bytes: 8), secret: Self.randomToken(bytes: 32))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try Self.writePrivately(String(decoding: try encoder.encode(app), as: UTF8.self), to: developmentAppPath)
        return (app, true)
    }

    private static func randomToken(bytes: Int) -> String {
        Data(SymmetricKey(size: SymmetricKeySize(bitCount: bytes * 8)).withUnsafeBytes { Data($0) }).base64URLEncoded
    }

    private static func writePrivately(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

/// Production apps, from a JSON file: `{"apps": [{"key": "…", "secret": "…", "limits": {…}}]}`.
public struct AppsFile: Codable, Sendable {
    public var apps: [AppCredentials]

    /// The apps of the file at `path`; a file that cannot be read, is not such JSON or holds a
    /// value no server could run with (`maxSessions` below 1) is refused with a sentence
    /// naming the file and the field (`AppsFileError`).
    public static func load(_ path: String) throws(AppsFileError) -> [AppCredentials] {
        guard let data = FileManager.default.contents(atPath: path) else { throw AppsFileError(path: path, reason: "cannot be read") }
        let apps: [AppCredentials]
        do {
            apps = try JSONDecoder().decode(AppsFile.self, from: data).apps
        } catch let error as DecodingError {
            throw AppsFileError(path: path, decoding: error)
        } catch {
            throw AppsFileError(path: path, reason: "is not JSON of {\"apps\": [{\"key\", \"secret\", …}]}")
        }
        for (index, app) in apps.enumerated() where app.maxSessions < 1 {
            throw AppsFileError(
                path: path, reason: "apps[\(index)].maxSessions is \(app.maxSessions): an app may have 1 or more live sessions at once")
        }
        return apps
    }
}

/// Why `caucus serve --config FILE` cannot use a file, in a sentence naming the field.
public struct AppsFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, decoding error: DecodingError) {
        func field(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
        }
        switch error {
        case .typeMismatch(let type, let context):
            let expected = type == Int.self || type == Double.self ? "a whole number" : type == String.self ? "a string" : "\(type)"
            self.init(path: path, reason: "\(field(context.codingPath)) must be \(expected)")
        case .valueNotFound(_, let context):
            self.init(path: path, reason: "\(field(context.codingPath)) is missing")
        case .keyNotFound(let key, let context):
            self.init(path: path, reason: "\(field(context.codingPath + [key])) is missing")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            self.init(path: path, reason: "\(field(context.codingPath)) must be a whole number")
        default:
            self.init(path: path, reason: "is not JSON of {\"apps\": [{\"key\", \"secret\", …}]}")
        }
    }

    public var description: String { "\(path): \(reason)" }
}
