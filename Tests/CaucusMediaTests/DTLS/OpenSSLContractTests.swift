import CaucusMedia
import Foundation
import Testing

/// The contract with an implementation nobody here wrote, over real UDP on 127.0.0.1:
/// OpenSSL's `s_client` and `s_server` print the RFC 5764 exporter output, which must be
/// byte for byte what this module derives. If a swift-nio-ssl update changes BoringSSL's
/// behaviour under the pin's feet, these fail loudly.
@Suite(.serialized) struct OpenSSLContractTests {
    static func exporterLength(_ profile: SRTPProfile) -> Int { 2 * (profile.keyLength + profile.saltLength) }

    /// Our server (the SFU's passive role) against `openssl s_client -dtls1_2 -use_srtp`.
    @Test(arguments: SRTPProfile.allCases)
    func serverAgainstSClient(profile: SRTPProfile) throws {
        let clientFiles = try OpenSSLTool.makeCertificate(commonName: "s_client")
        defer { OpenSSLTool.remove(clientFiles) }
        let clientFingerprint = try OpenSSLTool.fingerprint(ofCertificateIn: clientFiles)
        let server = try DTLSEndpoint(
            role: .server, certificate: try DTLSCertificate.generate(), expectedPeerFingerprint: clientFingerprint)
        var loop = DTLSOverUDP(endpoint: server, socket: try UDPTestSocket())
        let sClient = try OpenSSLTool.start([
            "s_client", "-dtls1_2", "-connect", "127.0.0.1:\(loop.socket.port)",
            "-use_srtp", profile.dtlsName,
            "-keymatexport", DTLSSRTPKeys.exporterLabel, "-keymatexportlen", "\(Self.exporterLength(profile))",
            "-cert", clientFiles.appendingPathComponent("cert.pem").path,
            "-key", clientFiles.appendingPathComponent("key.pem").path,
        ])
        defer {
            OpenSSLTool.abandon(sClient.process)
            OpenSSLTool.remove(sClient.output)
        }
        let finished = loop.run { loop in
            loop.failure != nil || !sClient.process.isRunning
                || (loop.keys != nil && OpenSSLTool.keyingMaterial(in: OpenSSLTool.contents(of: sClient.output)) != nil)
        }
        let printed = OpenSSLTool.contents(of: sClient.output)
        #expect(finished, "no handshake with s_client: \(printed)")
        let keys = try #require(loop.keys, "events: \(loop.events); s_client: \(printed)")
        #expect(keys.profile == profile)
        #expect(printed.contains("SRTP Extension negotiated, profile=\(profile.dtlsName)"))
        #expect(OpenSSLTool.keyingMaterial(in: printed) == keys.exportedKeyingMaterial(isClient: false))
        #expect(OpenSSLTool.keyingMaterial(in: printed)?.count == Self.exporterLength(profile))
        #expect(keys.peerFingerprint == clientFingerprint)
    }

    /// s_client's certificate is not the one the SDP announced: refused in the handshake,
    /// and s_client gets no keys.
    @Test func serverRefusesSClientWithAnotherFingerprint() async throws {
        let clientFiles = try OpenSSLTool.makeCertificate(commonName: "s_client")
        defer { OpenSSLTool.remove(clientFiles) }
        let clientFingerprint = try OpenSSLTool.fingerprint(ofCertificateIn: clientFiles)
        let announced = try DTLSCertificate.generate(commonName: "someone else").fingerprint
        let server = try DTLSEndpoint(role: .server, certificate: try DTLSCertificate.generate(), expectedPeerFingerprint: announced)
        var loop = DTLSOverUDP(endpoint: server, socket: try UDPTestSocket())
        let sClient = try OpenSSLTool.start([
            "s_client", "-dtls1_2", "-connect", "127.0.0.1:\(loop.socket.port)",
            "-use_srtp", SRTPProfile.aeadAES128GCM.dtlsName,
            "-keymatexport", DTLSSRTPKeys.exporterLabel, "-keymatexportlen", "56",
            "-cert", clientFiles.appendingPathComponent("cert.pem").path,
            "-key", clientFiles.appendingPathComponent("key.pem").path,
        ])
        defer {
            OpenSSLTool.abandon(sClient.process)
            OpenSSLTool.remove(sClient.output)
        }
        #expect(loop.run { $0.failure != nil || $0.keys != nil })
        #expect(loop.failure == .fingerprintMismatch(announced: announced, presented: clientFingerprint))
        #expect(loop.keys == nil)
        await OpenSSLTool.finish(sClient.process, input: sClient.input)
        // s_client prints its session even after a failed handshake; what shows the refusal
        // reached it is the alert (bad_certificate, 42) it reports.
        let printed = OpenSSLTool.contents(of: sClient.output)
        #expect(printed.contains("alert bad certificate"), "s_client: \(printed)")
    }

    /// Our client role (the SDK's and the load generator's) against `openssl s_server`.
    @Test(arguments: SRTPProfile.allCases)
    func clientAgainstSServer(profile: SRTPProfile) async throws {
        let serverFiles = try OpenSSLTool.makeCertificate(commonName: "s_server")
        defer { OpenSSLTool.remove(serverFiles) }
        let serverFingerprint = try OpenSSLTool.fingerprint(ofCertificateIn: serverFiles)
        // A port that was free a moment ago; s_server binds it, our client retransmits its
        // ClientHello on its timer until s_server listens.
        let port = try UDPTestSocket().port
        let sServer = try OpenSSLTool.start([
            "s_server", "-dtls1_2", "-accept", "127.0.0.1:\(port)", "-naccept", "1",
            "-cert", serverFiles.appendingPathComponent("cert.pem").path,
            "-key", serverFiles.appendingPathComponent("key.pem").path,
            "-verify", "1", "-use_srtp", profile.dtlsName,
            "-keymatexport", DTLSSRTPKeys.exporterLabel, "-keymatexportlen", "\(Self.exporterLength(profile))",
        ])
        defer {
            OpenSSLTool.abandon(sServer.process)
            OpenSSLTool.remove(sServer.output)
        }
        let client = try DTLSEndpoint(
            role: .client, certificate: try DTLSCertificate.generate(), expectedPeerFingerprint: serverFingerprint)
        var loop = DTLSOverUDP(endpoint: client, socket: try UDPTestSocket(), peer: UDPTestSocket.loopback(port: port))
        loop.start()
        let finished = loop.run { loop in loop.failure != nil || loop.keys != nil || !sServer.process.isRunning }
        // Our close_notify ends s_server's one connection (-naccept 1): it exits and its
        // whole output, the exporter bytes included, is flushed.
        loop.send(client.close(now: loop.now))
        await OpenSSLTool.finish(sServer.process, input: sServer.input)
        let printed = OpenSSLTool.contents(of: sServer.output)
        #expect(finished, "no handshake with s_server: \(printed)")
        let keys = try #require(loop.keys, "events: \(loop.events); s_server: \(printed)")
        #expect(keys.profile == profile)
        #expect(printed.contains("SRTP Extension negotiated, profile=\(profile.dtlsName)"))
        #expect(OpenSSLTool.keyingMaterial(in: printed) == keys.exportedKeyingMaterial(isClient: true))
        #expect(keys.peerFingerprint == serverFingerprint)
    }
}
