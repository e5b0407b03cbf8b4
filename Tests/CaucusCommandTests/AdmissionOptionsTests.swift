import ArgumentParser
import CaucusServer
import Testing

@testable import caucus

/// `serve`'s bounds on connections that have not joined: the deadline, per address, in all,
/// and the health port; each from its flag or its environment variable, each bad value refused.
@Suite struct AdmissionOptionsTests {
    private func configured(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        try Serve.parse(arguments).applyAdmissionOptions(to: &configuration, environment: environment)
        return configuration
    }

    @Test func theDefaultsFitAClassBehindOneAddressAndFollowTheDescriptorLimit() throws {
        let configuration = try configured([])
        #expect(configuration.joinDeadline == .seconds(10))
        #expect(configuration.maxWaitingPerAddress == 1_000)
        #expect(configuration.maxWaiting == nil, "derived from the open-file limit at start")
        #expect(configuration.healthPort == nil)
        #expect(DescriptorBudget.defaultMaxWaiting(openFiles: 4_096) == 1_920)
        #expect(DescriptorBudget.defaultMaxWaiting(openFiles: 1_024) == 384)
        #expect(DescriptorBudget.defaultMaxWaiting(openFiles: 200) == 16)
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let configuration = try configured(
            ["--max-waiting", "50", "--health-port", "9090", "--max-waiting-per-address", "7", "--join-deadline", "3"],
            environment: ["CAUCUS_MAX_WAITING": "60", "CAUCUS_HEALTH_PORT": "9091"])
        #expect(configuration.maxWaiting == 50)
        #expect(configuration.healthPort == 9090)
        #expect(configuration.maxWaitingPerAddress == 7)
        #expect(configuration.joinDeadline == .seconds(3))
        let fromEnvironment = try configured([], environment: ["CAUCUS_MAX_WAITING": "60", "CAUCUS_HEALTH_PORT": "0"])
        #expect(fromEnvironment.maxWaiting == 60)
        #expect(fromEnvironment.healthPort == 0)
    }

    @Test func everyBadValueIsRefused() {
        for arguments in [["--max-waiting", "0"], ["--health-port", "70000"], ["--max-waiting-per-address", "0"], ["--join-deadline", "0"]] {
            #expect(throws: ValidationError.self, "\(arguments)") { try configured(arguments) }
        }
        #expect(throws: ValidationError.self) { try configured([], environment: ["CAUCUS_MAX_WAITING": "many"]) }
    }
}
