import ArgumentParser
import CaucusServer
import Testing

@testable import caucus

/// `serve --public-url`: what follows from it (the media address, the node URL), and that an
/// explicit flag always wins.
@Suite struct PublicURLOptionsTests {
    private func configured(_ arguments: [String], environment: [String: String] = [:]) throws -> (Serve, ServerConfiguration) {
        let serve = try Serve.parse(arguments)
        var configuration = ServerConfiguration()
        configuration.mediaAddress = serve.mediaAddress ?? configuration.mediaAddress
        if arguments.contains("--store") { configuration.storeURL = "postgres://caucus@db.internal/caucus" }
        try serve.applyNetworkOptions(to: &configuration, environment: environment)
        return (serve, configuration)
    }

    @Test func anIPLiteralIsTheMediaAddressAndTheNodeURLFollowsOnASharedStore() throws {
        let (serve, configuration) = try configured(["--public-url", "https://203.0.113.7:8443", "--store", "postgres://x"])
        #expect(configuration.publicURL?.origin == "https://203.0.113.7:8443")
        #expect(configuration.mediaAddress == "203.0.113.7")
        #expect(serve.derivedNodeURL(configuration) == "https://203.0.113.7:8443")
    }

    @Test func theNodeURLNamesTheSchemesPortAndOnlyWithASharedStore() throws {
        let (serve, configuration) = try configured(["--public-url", "https://class.example.org", "--media-address", "198.51.100.4", "--store", "postgres://x"])
        #expect(serve.derivedNodeURL(configuration) == "https://class.example.org:443")
        let (alone, single) = try configured(["--public-url", "https://class.example.org", "--media-address", "198.51.100.4"])
        #expect(alone.derivedNodeURL(single) == nil, "one node without PostgreSQL stays one node")
    }

    @Test func anExplicitMediaAddressWinsAndNeedsNoResolution() throws {
        let (_, configuration) = try configured(["--public-url", "https://no-such-host.invalid", "--media-address", "198.51.100.4"])
        #expect(configuration.mediaAddress == "198.51.100.4")
        let (_, fromEnvironment) = try configured(
            ["--public-url", "https://no-such-host.invalid"], environment: ["CAUCUS_MEDIA_ADDRESS": "198.51.100.5"])
        #expect(fromEnvironment.mediaAddress == ServerConfiguration().mediaAddress, "the environment's address is applied by run(), not replaced")
    }

    @Test func aNameIsResolvedToIPv4() throws {
        let (_, configuration) = try configured(["--public-url", "https://localhost:8443"])
        #expect(configuration.mediaAddress == "127.0.0.1")
    }

    @Test func aNameThatDoesNotResolveSaysToPassTheMediaAddress() throws {
        #expect {
            try configured(["--public-url", "https://no-such-host.invalid"])
        } throws: { error in
            "\(error)".contains("no-such-host.invalid") && "\(error)".contains("--media-address")
        }
    }

    @Test(arguments: ["ftp://class.example.org", "https://class.example.org/console", "https://", "class.example.org", "https://a@b.org", "https://x.org?q=1"])
    func aURLThatIsNotAnOriginIsRefused(_ text: String) throws {
        #expect(throws: (any Error).self) { try configured(["--public-url", text, "--media-address", "198.51.100.4"]) }
    }

    @Test func theRedirectPortNeedsTLS() throws {
        #expect {
            try configured(["--http-redirect-port", "80"])
        } throws: { error in
            "\(error)".contains("--tls-cert")
        }
    }
}
