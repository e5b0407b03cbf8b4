// CNIOBoringSSL: not swift-nio-ssl's public API; see DTLSCertificate.swift.
import CNIOBoringSSL

/// One DTLS 1.2 association with `use_srtp` (RFC 5764), driven by its caller: it takes
/// datagrams and the time, and returns the datagrams to send and what happened. It never
/// touches a socket or a clock of its own, so the UDP shell, a test, and the client role all
/// drive it the same way.
///
/// Time is a `Duration` since any origin the caller keeps on a monotonic clock (for example
/// `.nanoseconds(NIODeadline.now().uptimeNanoseconds)`). BoringSSL reads that time, not the
/// wall clock, so retransmission timers fire exactly when the caller says they do.
///
/// Both sides present a certificate; the peer's is checked against the fingerprint its SDP
/// announced, inside the handshake, so a mismatch fails it with an alert.
///
/// Not thread-safe: one endpoint belongs to the event loop that owns the peer.
public final class DTLSEndpoint {
    public enum Role: Sendable, Hashable {
        /// DTLS client: sends the ClientHello (`a=setup:active`).
        case client
        /// DTLS server: waits for it (`a=setup:passive`, the SFU's role).
        case server
    }

    public enum Event: Sendable, Hashable {
        case connected(DTLSSRTPKeys)
        case failed(DTLSError)
    }

    public enum State: Sendable, Hashable {
        /// `failed` also covers a peer's close_notify or fatal alert; `closed` is our `close`.
        case handshaking, connected, failed, closed
    }

    /// What one call produced: datagrams to send to the peer, in order, and events.
    public struct Output: Sendable {
        public var datagrams: [[UInt8]] = []
        public var events: [Event] = []
    }

    public let role: Role
    public let certificate: DTLSCertificate
    public private(set) var state = State.handshaking
    /// When the caller must call `handleTimeout(now:)` (a retransmission), if ever.
    public private(set) var nextDeadline: Duration?

    private let context: OpaquePointer  // SSL_CTX
    private let connection: OpaquePointer  // SSL
    private let transport: DatagramBIO
    private let expectedPeerFingerprint: DTLSFingerprint?
    fileprivate var peerFingerprint: DTLSFingerprint?
    fileprivate var verificationFailure: DTLSError?

    /// - Parameters:
    ///   - expectedPeerFingerprint: from the peer's SDP; `nil` accepts any certificate and
    ///     leaves the check to the caller (`DTLSSRTPKeys.peerFingerprint`).
    ///   - profiles: in order of preference; the server picks the first the client offers.
    ///   - mtu: the largest datagram the handshake may send (certificates are fragmented).
    public init(
        role: Role,
        certificate: DTLSCertificate,
        expectedPeerFingerprint: DTLSFingerprint?,
        profiles: [SRTPProfile] = [.aeadAES128GCM, .aesCM128HMACSHA1_80],
        mtu: Int = 1_200
    ) throws(DTLSError) {
        self.role = role
        self.certificate = certificate
        self.expectedPeerFingerprint = expectedPeerFingerprint
        transport = try DatagramBIO()
        guard let context = SSL_CTX_new(DTLS_method()) else {
            BIO_free(transport.bio)
            throw .setupFailed(reason: BoringSSLErrors.drain())
        }
        self.context = context
        let configured =
            SSL_CTX_set_min_proto_version(context, UInt16(DTLS1_2_VERSION)) == 1
            && SSL_CTX_set_max_proto_version(context, UInt16(DTLS1_2_VERSION)) == 1
            && SSL_CTX_use_certificate(context, certificate.certificate) == 1
            && SSL_CTX_use_PrivateKey(context, certificate.key) == 1
            && SSL_CTX_set_srtp_profiles(context, profiles.map(\.dtlsName).joined(separator: ":")) == 1
        guard configured, !profiles.isEmpty, let connection = SSL_new(context) else {
            SSL_CTX_free(context)
            BIO_free(transport.bio)
            throw .setupFailed(reason: BoringSSLErrors.drain())
        }
        self.connection = connection
        SSL_CTX_set_current_time_cb(context, callerClock)
        SSL_set_custom_verify(connection, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verifyPeerCertificate)
        SSL_set_ex_data(connection, Self.endpointIndex, Unmanaged.passUnretained(self).toOpaque())
        // The SSL takes the one reference BIO_new gave, for reading and writing both.
        SSL_set_bio(connection, transport.bio, transport.bio)
        SSL_set_options(connection, UInt32(SSL_OP_NO_QUERY_MTU))
        SSL_set_mtu(connection, UInt32(mtu))
        switch role {
        case .client: SSL_set_connect_state(connection)
        case .server: SSL_set_accept_state(connection)
        }
    }

    deinit {
        SSL_free(connection)
        SSL_CTX_free(context)
    }

    /// Begins the handshake: the client's first flight; nothing for a server.
    public func start(now: Duration) -> Output {
        drive(now: now)
    }

    /// Feeds one datagram from the peer (the demultiplexer routes DTLS records here).
    public func receive(_ datagram: [UInt8], now: Duration) -> Output {
        guard state == .handshaking || state == .connected else { return Output() }
        transport.incoming.append(datagram)
        return drive(now: now)
    }

    /// Retransmits the last flight if its timer has run out at `now`.
    public func handleTimeout(now: Duration) -> Output {
        guard state == .handshaking || state == .connected else { return Output() }
        var output = Output()
        let handled = DTLSClock.$now.withValue(now) { DTLSv1_handle_timeout(connection) }
        if handled < 0 {
            fail(.handshakeFailed(reason: "retransmission: " + BoringSSLErrors.drain()), into: &output)
        }
        output.datagrams += transport.takeOutgoing()
        updateDeadline(now: now)
        return output
    }

    /// Ends the association with a close_notify alert (a peer that leaves).
    public func close(now: Duration) -> Output {
        guard state == .connected || state == .handshaking else { return Output() }
        DTLSClock.$now.withValue(now) { _ = SSL_shutdown(connection) }
        state = .closed
        transport.incoming.removeAll()
        nextDeadline = nil
        return Output(datagrams: transport.takeOutgoing())
    }

    private func drive(now: Duration) -> Output {
        var output = Output()
        DTLSClock.$now.withValue(now) {
            switch state {
            case .handshaking: handshake(into: &output)
            case .connected: readRecords(into: &output)
            case .failed, .closed: break
            }
        }
        output.datagrams += transport.takeOutgoing()
        updateDeadline(now: now)
        return output
    }

    private func handshake(into output: inout Output) {
        let result = SSL_do_handshake(connection)
        guard result == 1 else {
            let error = SSL_get_error(connection, result)
            if error == SSL_ERROR_WANT_READ { return }
            let reason = BoringSSLErrors.drain()
            fail(verificationFailure ?? .handshakeFailed(reason: reason), into: &output)
            return
        }
        switch exportKeys() {
        case .success(let keys):
            state = .connected
            output.events.append(.connected(keys))
            // Records that arrived with the last flight (application data, alerts).
            readRecords(into: &output)
        case .failure(let error):
            fail(error, into: &output)
        }
    }

    private func exportKeys() -> Result<DTLSSRTPKeys, DTLSError> {
        guard let selected = SSL_get_selected_srtp_profile(connection),
            let profile = SRTPProfile.allCases.first(where: { UInt($0.dtlsIdentifier) == selected.pointee.id })
        else { return .failure(.noSRTPProfile) }
        guard let peerFingerprint else { return .failure(.noPeerCertificate) }
        var exported = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let label = DTLSSRTPKeys.exporterLabel
        guard
            SSL_export_keying_material(connection, &exported, exported.count, label, label.utf8.count, nil, 0, 0) == 1,
            let keys = DTLSSRTPKeys(
                exported: exported, profile: profile, isClient: role == .client, peerFingerprint: peerFingerprint)
        else { return .failure(.handshakeFailed(reason: "exporter: " + BoringSSLErrors.drain())) }
        return .success(keys)
    }

    /// After the handshake: lets BoringSSL answer a retransmitted final flight and notice
    /// alerts. Application data (data channels) is not supported and is dropped.
    private func readRecords(into output: inout Output) {
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while true {
            let result = SSL_read(connection, &buffer, CInt(buffer.count))
            if result > 0 { continue }
            switch SSL_get_error(connection, result) {
            case SSL_ERROR_WANT_READ:
                return
            case SSL_ERROR_ZERO_RETURN:
                fail(.closed(reason: "close_notify"), into: &output)
                return
            default:
                fail(.closed(reason: BoringSSLErrors.drain()), into: &output)
                return
            }
        }
    }

    private func fail(_ error: DTLSError, into output: inout Output) {
        state = .failed
        transport.incoming.removeAll()
        output.events.append(.failed(error))
    }

    private func updateDeadline(now: Duration) {
        var remaining = timeval()
        guard state == .handshaking || state == .connected, DTLSv1_get_timeout(connection, &remaining) == 1 else {
            nextDeadline = nil
            return
        }
        nextDeadline = now + .seconds(remaining.tv_sec) + .microseconds(remaining.tv_usec)
    }

    fileprivate func checkPeer(_ connection: OpaquePointer) -> Bool {
        guard let certificate = SSL_get_peer_certificate(connection) else {
            verificationFailure = .noPeerCertificate
            return false
        }
        defer { X509_free(certificate) }
        guard let presented = DTLSCertificate.fingerprint(of: certificate) else {
            verificationFailure = .noPeerCertificate
            return false
        }
        peerFingerprint = presented
        if let expectedPeerFingerprint, expectedPeerFingerprint != presented {
            verificationFailure = .fingerprintMismatch(announced: expectedPeerFingerprint, presented: presented)
            return false
        }
        return true
    }

    fileprivate static func from(_ connection: OpaquePointer) -> DTLSEndpoint? {
        guard let pointer = SSL_get_ex_data(connection, endpointIndex) else { return nil }
        return Unmanaged<DTLSEndpoint>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Where each SSL keeps its unretained pointer back to the endpoint.
    private static let endpointIndex = SSL_get_ex_new_index(0, nil, nil, nil, nil)
}

/// The caller's time during a call into BoringSSL, read back by `callerClock`. BoringSSL's
/// time callback receives no context, so the time travels with the (synchronous) call.
enum DTLSClock {
    @TaskLocal static var now: Duration?
}

private func callerClock(_: OpaquePointer?, _ clock: UnsafeMutablePointer<timeval>?) {
    guard let clock else { return }
    // An offset keeps BoringSSL's clock well away from zero, whatever the caller's origin.
    let now = (DTLSClock.now ?? .zero) + .seconds(1_000_000)
    let (seconds, attoseconds) = now.components
    clock.pointee = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
}

private func verifyPeerCertificate(
    _ connection: OpaquePointer?,
    _ alert: UnsafeMutablePointer<UInt8>?
) -> ssl_verify_result_t {
    guard let connection, let endpoint = DTLSEndpoint.from(connection) else { return ssl_verify_invalid }
    if endpoint.checkPeer(connection) { return ssl_verify_ok }
    alert?.pointee = UInt8(SSL_AD_BAD_CERTIFICATE)
    return ssl_verify_invalid
}
