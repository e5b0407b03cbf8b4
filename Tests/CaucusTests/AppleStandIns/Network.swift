// A stand-in for Apple's Network framework, for AppleOnlyCodeTests: only what
// PlatformNetworkSources.swift and TrustedTLSOptions.swift call, declared as Apple's SDK
// declares it (`NWPathMonitor` is `@unchecked Sendable` with a `@Sendable` path handler). Not
// part of any target.
import Dispatch
import Security

public struct NWInterface: Sendable {
    public let name: String
}

public struct NWPath: Sendable {
    public enum Status: Sendable {
        case satisfied, unsatisfied, requiresConnection
    }

    public let status: Status
    public let availableInterfaces: [NWInterface]
}

// As Apple declares it; this stand-in is only typechecked, never run, so nothing races here.
final public class NWPathMonitor: @unchecked Sendable {
    public init() {}
    final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    final public func start(queue: DispatchQueue) {}
    final public func cancel() {}
}

public enum NWProtocolTLS {
    final public class Options {
        public init() {}
        // Only typechecked, never run.
        final public var securityProtocolOptions: sec_protocol_options_t { fatalError("a stand-in") }
    }
}
