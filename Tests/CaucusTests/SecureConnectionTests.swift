import Caucus
import CaucusCore
import Foundation
import Testing

/// The SDK over `wss://` to a real `caucus serve --tls-cert`, whose certificate a test CA made
/// (Tests/PythonSupport/test_ca.py): trusted through `Configuration.trustRoots`, everything
/// works as over `ws://`, a drop included; not trusted, `join` fails at once with a TLS error.
@Suite(.serialized) struct SecureConnectionTests {
    /// A test CA's folder (ca.pem, server.pem with its chain, server.key, other-ca.pem) and a
    /// `caucus serve` on that certificate.
    struct SecureServer {
        let folder: String
        let process: ServerProcess

        /// `certificate`: the base name of the certificate and key in the CA's folder.
        static func start(certificate: String = "server") async throws -> SecureServer {
            let folder = temporaryFolder(prefix: "caucus-tls-")
            let script = Typecheck.root.appendingPathComponent("Tests/PythonSupport/test_ca.py").path
            let maker = try LineProcess(["python3", script, folder])
            while await maker.nextLine() != nil {}
            guard FileManager.default.fileExists(atPath: folder + "/server.key") else {
                throw TestFailure("test_ca.py made no certificate in \(folder) (is python3's cryptography installed?)")
            }
            let process = try await ServerProcess(
                dataDirectory: temporaryFolder(), arguments: ["--tls-cert", folder + "/\(certificate).pem", "--tls-key", folder + "/\(certificate).key"])
            return SecureServer(folder: folder, process: process)
        }

        /// The server's certificate names localhost (and 127.0.0.1, which Linux's client cannot check).
        func url(port: Int? = nil) -> URL { URL(string: "wss://localhost:\(port ?? process.port)/ws")! }

        func roots(_ name: String = "ca.pem") throws -> [CaucusSession.Configuration.TrustRoot] {
            try CaucusSession.Configuration.TrustRoot.certificates(pem: String(contentsOfFile: folder + "/" + name, encoding: .utf8))
        }

        func configuration(trusting name: String? = "ca.pem") throws -> CaucusSession.Configuration {
            var configuration = Client.configuration
            if let name { configuration.trustRoots = try roots(name) }
            return configuration
        }

        func client(_ name: String, session: String, role: RoleClaim = .participant, url: URL? = nil) async throws -> Client {
            let client = Client(configuration: try configuration())
            let token = try process.token(session: session, role: role)
            let address = url ?? self.url()
            try await within("\(name) joins over wss") {
                try await client.session.join(url: address, sessionName: session, userName: name, token: token)
            }
            return client
        }

        /// The error `join` ends with when the client trusts `roots`.
        func refusedJoin(trusting name: String?, url: URL? = nil) async throws -> SessionError? {
            let client = Client(configuration: try configuration(trusting: name))
            let token = try process.token(session: "Refused", role: .host)
            let address = url ?? self.url()
            return try await within("join fails") {
                do throws(SessionError) {
                    try await client.session.join(url: address, sessionName: "Refused", userName: "Eve", token: token)
                    return nil
                } catch {
                    return error
                }
            }
        }
    }

    @Test func aBreakoutAndAResumeRunOverWSSWithAPrivateCA() async throws {
        let server = try await SecureServer.start()
        // TLS passes through the proxy untouched: cutting it drops Ann's socket mid-session.
        let proxy = try await TCPProxy.start(to: server.process.port, readingFrames: false)
        let host = try await server.client("Teacher", session: "Secure", role: .host)
        let ann = try await server.client("Ann", session: "Secure", url: server.url(port: proxy.port))
        let red = try await host.startRoom("Red", joinedBy: [ann])
        #expect(try ann.snapshot.mySubsession?.id == red.id)

        proxy.cut(refusingNew: true)
        try await ann.log.next("reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await #require(host.session.subsessionManager).broadcast("while Ann was away")
        proxy.reopen()
        try await ann.log.next("connected again") { $0.isConnectionState(.connected) ? true : nil }
        try await ann.log.next("the missed broadcast") {
            if case .broadcast(let text, _) = $0, text == "while Ann was away" { true } else { nil }
        }
        #expect(try ann.snapshot.mySubsession?.id == red.id, "the same seat, in the same room")
        try await ann.session.chat.send("back over wss")
        #expect(!ann.log.all.contains { if case .sessionLeft = $0 { true } else { false } })
        await proxy.stop()
        server.process.kill(SIGTERM)
    }

    @Test func aServerTheClientDoesNotTrustFailsJoinAtOnceWithATLSError() async throws {
        let server = try await SecureServer.start()
        // The system's roots alone, then another CA: neither signed the server's certificate.
        for roots in [nil, "other-ca.pem"] {
            let error = try await server.refusedJoin(trusting: roots)
            guard case .tlsFailed(let reason) = error else {
                Issue.record("a TLS error, not \(String(describing: error))")
                continue
            }
            #expect(reason.contains("not trusted"), "\(reason)")
            #expect(reason.contains("trustRoots"), "says where a private CA goes: \(reason)")
        }
        server.process.kill(SIGTERM)
    }

    @Test func aCertificateThatDoesNotNameTheHostIsATLSError() async throws {
        // A certificate for elsewhere.test, reached as localhost.
        let server = try await SecureServer.start(certificate: "elsewhere")
        let error = try await server.refusedJoin(trusting: "ca.pem")
        guard case .tlsFailed(let reason) = error else {
            Issue.record("a TLS error, not \(String(describing: error))")
            return
        }
        #expect(reason.contains("does not name localhost"), "\(reason)")
        server.process.kill(SIGTERM)
    }

    #if !canImport(Network)
    @Test func wssToAnIPAddressSaysToUseAHostName() async throws {
        let server = try await SecureServer.start()
        let error = try await server.refusedJoin(trusting: "ca.pem", url: URL(string: "wss://127.0.0.1:\(server.process.port)/ws")!)
        guard case .tlsFailed(let reason) = error else {
            Issue.record("a TLS error, not \(String(describing: error))")
            return
        }
        #expect(reason.contains("host name"), "\(reason)")
        server.process.kill(SIGTERM)
    }
    #endif

    @Test func aTrustRootIsACertificateOrRefused() throws {
        typealias TrustRoot = CaucusSession.Configuration.TrustRoot
        #expect(throws: TrustRoot.Unreadable.self) { try TrustRoot.certificates(pem: "not a certificate") }
        #expect(throws: TrustRoot.Unreadable.self) {
            try TrustRoot.certificates(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: TrustRoot.Unreadable.self) { try TrustRoot(derBytes: [0x30, 0x03, 0x02, 0x01, 0x01]) }
    }

    @Test func aPEMBundleGivesEachOfItsCertificates() async throws {
        let folder = temporaryFolder(prefix: "caucus-tls-")
        let maker = try LineProcess(["python3", Typecheck.root.appendingPathComponent("Tests/PythonSupport/test_ca.py").path, folder])
        while await maker.nextLine() != nil {}
        // server.pem is the server's certificate followed by its CA's.
        let chain = try CaucusSession.Configuration.TrustRoot.certificates(pem: String(contentsOfFile: folder + "/server.pem", encoding: .utf8))
        #expect(chain.count == 2)
        let ca = try CaucusSession.Configuration.TrustRoot.certificates(pem: String(contentsOfFile: folder + "/ca.pem", encoding: .utf8))
        #expect(ca == [chain[1]])
        #expect(try CaucusSession.Configuration.TrustRoot(derBytes: ca[0].derBytes) == ca[0])
    }
}
