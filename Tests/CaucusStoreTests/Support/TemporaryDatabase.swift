import Foundation

/// A database path in a fresh folder that is removed afterwards. The file sits one folder
/// deeper than the temporary folder so that every test also exercises folder creation.
func withTemporaryDatabase<T>(_ body: (_ path: String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-store-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder.appendingPathComponent("data/caucus.sqlite").path)
}
