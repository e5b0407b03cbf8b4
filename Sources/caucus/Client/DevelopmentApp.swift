import CaucusAuth
import Foundation

/// The development app `caucus serve` writes to `<data>/development-app.json` on first start:
/// what `caucus token` and `caucus client` sign with when given no app of their own.
enum DevelopmentApp {
    /// Reads the development app from the data directory `data`.
    /// - Throws: `TokenCommand.Failure` saying what is missing or wrong, and how to fix it.
    static func load(data: String) throws -> AppCredentials {
        let file = URL(fileURLWithPath: data).appendingPathComponent(AppCredentials.developmentFileName)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw TokenCommand.Failure(
                description: "No app to sign for: \(file.path) does not exist. Pass --app-key and --app-secret "
                    + "(or, to `caucus client`, a --token), "
                    + "or run `caucus serve` once (with the same --data) to create the development app.")
        }
        do {
            return try JSONDecoder().decode(AppCredentials.self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw TokenCommand.Failure(description: "\(file.path) is not an app's JSON ({\"key\": ..., \"secret\": ...}): \(reason(error))")
        } catch {
            throw TokenCommand.Failure(description: "Cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "bad \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        @unknown default: "\(error)"
        }
    }
}
