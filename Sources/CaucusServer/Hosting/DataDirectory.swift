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

    public static func load(_ path: String) throws -> [AppCredentials] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return try JSONDecoder().decode(AppsFile.self, from: data).apps
    }
}
