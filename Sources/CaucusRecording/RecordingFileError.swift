#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a recording file could not be written. A full disk is its own code, so that the caller
/// stops recording with an event saying so (the session goes on).
public struct RecordingFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        /// ENOSPC or EDQUOT: no room left.
        case diskFull = 1
        /// The file (or folder) exists already, or cannot be created there.
        case cannotCreate = 2
        /// Any other failure of the system call.
        case ioFailure = 3
        /// Written to after it was closed.
        case closed = 4
    }

    public enum Operation: String, Sendable {
        case create, write, synchronize
    }

    public var code: Code
    public var operation: Operation
    public var path: String
    /// The system's error number, 0 when none.
    public var systemError: Int32

    public init(code: Code, operation: Operation, path: String, systemError: Int32 = 0) {
        self.code = code
        self.operation = operation
        self.path = path
        self.systemError = systemError
    }

    init(errno number: Int32, operation: Operation, path: String) {
        let code: Code =
            number == ENOSPC || number == EDQUOT ? .diskFull : operation == .create ? .cannotCreate : .ioFailure
        self.init(code: code, operation: operation, path: path, systemError: number)
    }

    public var description: String {
        let reason = systemError != 0 ? String(cString: strerror(systemError)) : "the file is closed"
        return "recording file \(path): \(operation.rawValue) failed (\(code)): \(reason)"
    }
}
