/// Why the session refused a command. Every refusal changes nothing and emits no event.
public struct CaucusError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable name of the code, e.g. `needPassword`.
    public var name: String { code.name }
    public var description: String { "\(code.rawValue) \(code.name): \(message)" }

    /// The seed status a refused commit, withdraw, start or stop reports to the one who tried.
    package static func failureStatus(of command: Command) -> SubsessionStatus? {
        switch command {
        case .commit: .commitFailed
        case .withdraw: .withdrawFailed
        case .start: .startFailed
        case .stop: .stopFailed
        default: nil
        }
    }
}
