/// A codec library's refusal, with the library's own reason.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Library: String, Sendable { case opus = "libopus", vpx = "libvpx" }

    public let library: Library
    public let operation: String
    public let code: Int32
    public let reason: String

    public var description: String { "\(library.rawValue): \(operation) failed (\(code)): \(reason)" }
}
