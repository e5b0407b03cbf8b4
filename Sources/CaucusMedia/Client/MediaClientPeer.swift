/// One WebRTC peer in the client's role against an ICE-lite, DTLS-passive SFU such as
/// `caucus serve`: full ICE in the controlling role towards the server's one candidate, the
/// DTLS client, and once keyed an SRTP session, behind the same caller-driven interface as
/// the server's ``MediaPeer``. The Swift SDK's media and `caucus bench media` both stand on it.
///
/// The caller hands it each datagram with its source and the time (a `Duration` on its
/// monotonic clock), calls ``handleTimeout(now:)`` at ``nextDeadline``, and sends what it
/// returns. Pure like its parts: no sockets, clocks or threads. Only datagrams from the
/// server's address are used; everything else is dropped and counted. Its events are
/// ``MediaPeerEvent/connected(address:profile:)``, ``MediaPeerEvent/rtp(_:)`` and
/// ``MediaPeerEvent/rtcp(_:)``; how it ended is in ``state``.
///
/// Not thread-safe (it owns a `DTLSEndpoint`): one peer belongs to one event loop.
public final class MediaClientPeer {
    public enum State: Sendable, Hashable {
        /// Checking the server's candidate, then handshaking.
        case connecting
        case connected
        case closed(MediaClientCloseReason)
    }

    public let server: MediaServerEndpoint
    public let localCredentials: ICECredentials
    public private(set) var state = State.connecting
    public private(set) var counters = MediaPeerCounters()
    public private(set) var profile: SRTPProfile?

    private var ice: ICEControllingAgent
    private let dtls: DTLSEndpoint
    private var srtp: SRTPSession?
    private var started = false

    /// - Parameters:
    ///   - localCredentials: the ice-ufrag/pwd this client put in its offer.
    ///   - certificate: the certificate whose fingerprint its offer carried.
    ///   - server: what the server's answer says (``MediaServerEndpoint/init(answer:)``).
    ///   - tieBreaker: ICE's tie-breaker; any random number.
    public init(
        localCredentials: ICECredentials, certificate: DTLSCertificate, server: MediaServerEndpoint, tieBreaker: UInt64
    ) throws(DTLSError) {
        self.server = server
        self.localCredentials = localCredentials
        ice = ICEControllingAgent(local: localCredentials, remote: server.credentials, remoteAddress: server.address, tieBreaker: tieBreaker)
        dtls = try DTLSEndpoint(role: .client, certificate: certificate, expectedPeerFingerprint: server.fingerprint)
    }

    public var isConnected: Bool { state == .connected }

    public var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Sends the first connectivity check.
    public func start(now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !started, !isClosed else { return output }
        started = true
        if let check = ice.start(at: now) { output.datagrams.append(AddressedDatagram(bytes: check, destination: server.address)) }
        return output
    }

    /// When ``handleTimeout(now:)`` has something to do: a check or its retransmission, a
    /// consent check, or a DTLS retransmission.
    public var nextDeadline: Duration? {
        guard !isClosed else { return nil }
        return [ice.nextDeadline, dtls.nextDeadline].compactMap { $0 }.min()
    }

    /// Retransmits, keeps consent, or closes the peer when ICE failed.
    public func handleTimeout(now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !isClosed else { return output }
        if let check = ice.tick(at: now) { output.datagrams.append(AddressedDatagram(bytes: check, destination: server.address)) }
        if case .failed(let failure) = ice.state {
            close(.iceFailed(failure), now: now, into: &output)
            return output
        }
        if let deadline = dtls.nextDeadline, now >= deadline {
            absorb(dtls.handleTimeout(now: now), now: now, into: &output)
        }
        return output
    }

    /// Handles one datagram that arrived from `source`.
    public func receive(_ datagram: [UInt8], from source: TransportAddress, now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !isClosed else {
            counters.afterClose += 1
            return output
        }
        guard source == server.address else {
            counters.mediaWithoutConsent += 1
            return output
        }
        switch DatagramKind(classifying: datagram) {
        case .stun:
            let wasConnected = ice.state == .connected
            ice.receive(datagram, from: source, at: now)
            if !wasConnected, ice.state == .connected, dtls.state == .handshaking {
                absorb(dtls.start(now: now), now: now, into: &output)
            }
        case .dtls:
            guard ice.state == .connected else {
                counters.dtlsWithoutConsent += 1
                return output
            }
            absorb(dtls.receive(datagram, now: now), now: now, into: &output)
        case .rtp: unprotect(datagram, isRTCP: false, into: &output)
        case .rtcp: unprotect(datagram, isRTCP: true, into: &output)
        case .unknown: counters.malformed += 1
        }
        return output
    }

    /// Ends the peer: a close_notify goes to the server.
    public func close(now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !isClosed else { return output }
        close(.closedByUs, now: now, into: &output)
        return output
    }

    /// Protects an RTP packet for the server; nil (and counted) when not connected or malformed.
    public func protect(rtp packet: [UInt8]) -> AddressedDatagram? {
        protect(packet, isRTCP: false)
    }

    /// Protects an RTCP compound packet for the server; nil (and counted) as for RTP.
    public func protect(rtcp packet: [UInt8]) -> AddressedDatagram? {
        protect(packet, isRTCP: true)
    }

    // MARK: - Private

    private func absorb(_ result: DTLSEndpoint.Output, now: Duration, into output: inout MediaPeerOutput) {
        output.datagrams += result.datagrams.map { AddressedDatagram(bytes: $0, destination: server.address) }
        for event in result.events {
            switch event {
            case .connected(let keys):
                do {
                    srtp = try SRTPSession(keys: keys)
                    profile = keys.profile
                } catch {
                    close(.dtlsFailed(.handshakeFailed(reason: "SRTP keys refused: \(error)")), now: now, into: &output)
                    return
                }
                state = .connected
                output.events.append(.connected(address: server.address, profile: keys.profile))
            case .failed(let error):
                close(.dtlsFailed(error), now: now, into: &output)
                return
            }
        }
    }

    private func unprotect(_ datagram: [UInt8], isRTCP: Bool, into output: inout MediaPeerOutput) {
        guard let srtp else {
            counters.mediaBeforeKeys += 1
            return
        }
        if let event = srtp.unprotectedEvent(of: datagram, isRTCP: isRTCP, counters: &counters) { output.events.append(event) }
    }

    private func close(_ reason: MediaClientCloseReason, now: Duration, into output: inout MediaPeerOutput) {
        if reason == .closedByUs, dtls.state == .connected {
            output.datagrams += dtls.close(now: now).datagrams.map { AddressedDatagram(bytes: $0, destination: server.address) }
        }
        state = .closed(reason)
        srtp = nil
    }

    private func protect(_ packet: [UInt8], isRTCP: Bool) -> AddressedDatagram? {
        guard state == .connected, let srtp else {
            counters.protectFailures += 1
            return nil
        }
        return srtp.protectedDatagram(of: packet, isRTCP: isRTCP, to: server.address, counters: &counters)
    }
}

/// Why a ``MediaClientPeer`` ended.
public enum MediaClientCloseReason: Sendable, Hashable {
    /// No answer to the checks within ICE's schedule, an error response, or consent lost.
    case iceFailed(ICEControllingAgent.Failure)
    /// The handshake failed, or the server ended the association (close_notify, fatal alert).
    case dtlsFailed(DTLSError)
    /// ``MediaClientPeer/close(now:)``.
    case closedByUs
}
