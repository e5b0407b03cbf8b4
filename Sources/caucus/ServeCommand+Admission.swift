import ArgumentParser
import CaucusServer
import Foundation
import Logging

/// `serve`'s options for connections that have not joined yet: their deadline, their number
/// per address and in all, and the health port that answers whatever they hold.
extension Serve {
    func applyAdmissionOptions(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        if let seconds = try joinDeadline ?? environment["CAUCUS_JOIN_DEADLINE"].map({ try Self.whole($0, "CAUCUS_JOIN_DEADLINE") }) {
            guard seconds >= 1 else { throw ValidationError("The join deadline is 1 second or more.") }
            configuration.joinDeadline = .seconds(seconds)
        }
        let perAddress = try maxWaitingPerAddress
            ?? environment["CAUCUS_MAX_WAITING_PER_ADDRESS"].map({ try Self.whole($0, "CAUCUS_MAX_WAITING_PER_ADDRESS") })
        if let perAddress {
            guard perAddress >= 1 else { throw ValidationError("The connections waiting to join per address are 1 or more.") }
            configuration.maxWaitingPerAddress = perAddress
        }
        if let waiting = try maxWaiting ?? environment["CAUCUS_MAX_WAITING"].map({ try Self.whole($0, "CAUCUS_MAX_WAITING") }) {
            guard waiting >= 1 else { throw ValidationError("The connections waiting to join are 1 or more.") }
            configuration.maxWaiting = waiting
        }
        if let port = try healthPort ?? environment["CAUCUS_HEALTH_PORT"].map({ try Self.whole($0, "CAUCUS_HEALTH_PORT") }) {
            guard (0...65535).contains(port) else { throw ValidationError("The health port is 0 to 65535.") }
            configuration.healthPort = port
        }
    }

    /// Raises the soft open-file limit to the hard one, and says so when `--max-waiting` asks
    /// for more connections than the limit leaves room for.
    func raiseOpenFileLimit(_ configuration: ServerConfiguration, logger: Logger) {
        let limit = DescriptorBudget.raiseOpenFileLimit()
        if let limit, let waiting = configuration.maxWaiting, waiting > limit - DescriptorBudget.reserved {
            logger.warning(
                "--max-waiting \(waiting) is above the \(limit) open files the process may have, less \(DescriptorBudget.reserved) reserved: strangers could exhaust them before the ceiling closes their connections.")
        }
    }

    static func announceHealth(server: SessionServer, port: Int) {
        let line = "Health (whatever the main port holds): http://\(server.configuration.host):\(port)/healthz, /readyz, /metrics\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
