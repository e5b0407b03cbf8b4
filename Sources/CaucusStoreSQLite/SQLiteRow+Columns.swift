import CaucusCore
import CaucusStore
import SQLiteNIO

/// Typed column reads that fail loudly: a NULL or mistyped value where the schema promises
/// otherwise means the file was damaged or edited by hand, and guessing would hide that.
extension SQLiteRow {
    func int64(_ name: String) throws -> Int64 {
        guard case .integer(let value)? = column(name) else { throw corrupt(name, expected: "an integer") }
        return Int64(value)
    }

    func optionalInt64(_ name: String) throws -> Int64? {
        switch column(name) {
        case .integer(let value)?: return Int64(value)
        case .null?: return nil
        default: throw corrupt(name, expected: "an integer or NULL")
        }
    }

    func text(_ name: String) throws -> String {
        guard case .text(let value)? = column(name) else { throw corrupt(name, expected: "text") }
        return value
    }

    func optionalText(_ name: String) throws -> String? {
        switch column(name) {
        case .text(let value)?: return value
        case .null?: return nil
        default: throw corrupt(name, expected: "text or NULL")
        }
    }

    func int(_ name: String) throws -> Int { Int(try int64(name)) }
    func instant(_ name: String) throws -> Instant { Instant(milliseconds: try int64(name)) }
    func optionalInstant(_ name: String) throws -> Instant? { try optionalInt64(name).map(Instant.init(milliseconds:)) }
    func sessionID(_ name: String) throws -> StoredSessionID { StoredSessionID(rawValue: try int64(name)) }

    private func corrupt(_ name: String, expected: String) -> StoreError {
        StoreError(.corruptRow, "Column \(name) should hold \(expected) but holds \(column(name).map { "\($0)" } ?? "nothing").")
    }
}
