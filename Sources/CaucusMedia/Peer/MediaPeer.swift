/// One WebRTC peer in the server's role: the ICE-lite agent, a passive DTLS endpoint and,
/// once keyed, an SRTP session, behind one caller-driven interface. The UDP shell hands it
/// each datagram with its source address and the time (a `Duration` on the caller's
/// monotonic clock), calls ``handleTimeout(now:)`` at ``nextDeadline``, and sends what it
/// returns. Pure like its parts: no sockets, clocks or threads; tests drive it on a
/// simulated clock.
///
/// Media is accepted only from an address that passed an ICE check and still has consent,
/// and only once DTLS has keyed SRTP. Every datagram that cannot be used is dropped and
/// counted in ``counters``; nothing is thrown out of the peer.
///
/// Not thread-safe (it owns a `DTLSEndpoint`): one peer belongs to the event loop that
/// serves its socket.
public final class MediaPeer {
    public enum State: Sendable, Hashable {
        /// Waiting for ICE to select a pair and DTLS to complete.
        case connecting
        case connected(TransportAddress)
        case closed(MediaPeerCloseReason)
    }

    // The fields every forwarded copy reads (``protect(rtp:length:)``: the state, the profile,
    // the outbound SRTP context) come first, within the object's first 48 bytes beside its
    // header (Swift lays a class's stored properties out in the order they are declared):
    // declared among the others they lay 256 bytes apart, and with the session's object
    // in between, each copy to a subscriber waited on loads from four cache lines, most of the
    // function's own samples in profiles (docs/benchmarks.md).
    public private(set) var state = State.connecting
    /// The SRTP profile DTLS chose, once connected.
    public private(set) var profile: SRTPProfile?
    /// ``srtp``'s outbound context, held here too: reached through the session it was one
    /// more object (and one more retain) per forwarded copy.
    private var outbound: SRTPContext?
    private var srtp: SRTPSession? {
        didSet { outbound = srtp?.outbound }
    }

    public let localCredentials: ICECredentials
    public private(set) var counters = MediaPeerCounters()
    private var ice: ICELiteAgent
    private let dtls: DTLSEndpoint
    /// Where ICE's nominated pair points, once nominated.
    private var selected: TransportAddress?
    /// Where the DTLS client last spoke from: retransmissions go back there.
    private var dtlsPeer: TransportAddress?
    private var lastCheckOnSelected: Duration?
    private let consentTimeout: Duration
    private let setupDeadline: Duration

    /// - Parameters:
    ///   - localCredentials: the server's ice-ufrag/pwd for this peer, as its answer says.
    ///   - remoteUfrag: the offer's ice-ufrag, the second half of each check's USERNAME.
    ///   - expectedPeerFingerprint: the offer's `a=fingerprint`; the handshake fails on any other.
    ///   - consentTimeout: how long the selected address keeps consent without a check (RFC 7675).
    ///   - setupTimeout: how long ICE and DTLS may take before the peer is given up.
    public init(
        localCredentials: ICECredentials, remoteUfrag: String, certificate: DTLSCertificate,
        expectedPeerFingerprint: DTLSFingerprint, now: Duration,
        consentTimeout: Duration = .seconds(30), setupTimeout: Duration = .seconds(30)
    ) throws(DTLSError) {
        self.localCredentials = localCredentials
        var ice = ICELiteAgent(local: localCredentials, remoteUfrag: remoteUfrag)
        ice.consentTimeout = consentTimeout
        self.ice = ice
        self.consentTimeout = consentTimeout
        self.setupDeadline = now + setupTimeout
        dtls = try DTLSEndpoint(role: .server, certificate: certificate, expectedPeerFingerprint: expectedPeerFingerprint)
    }

    /// The address media goes to, once connected.
    public var selectedAddress: TransportAddress? {
        if case .connected(let address) = state { address } else { nil }
    }

    /// Whether `source` passed an ICE check recently enough to send to this peer: the UDP
    /// shell routes later datagrams from that address here.
    public func hasConsent(from source: TransportAddress, at now: Duration) -> Bool {
        !isClosed && ice.hasConsent(from: source, at: now)
    }

    public var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// When ``handleTimeout(now:)`` has something to do: a DTLS retransmission, the end of
    /// consent, or the end of the setup time.
    public var nextDeadline: Duration? {
        switch state {
        case .closed: return nil
        case .connecting: return [dtls.nextDeadline, setupDeadline].compactMap { $0 }.min()
        case .connected:
            let consentEnd = lastCheckOnSelected.map { $0 + consentTimeout }
            return [dtls.nextDeadline, consentEnd].compactMap { $0 }.min()
        }
    }

    /// Handles one datagram that arrived from `source`.
    public func receive(_ datagram: [UInt8], from source: TransportAddress, now: Duration) -> MediaPeerOutput {
        var bytes = datagram
        var output = MediaPeerOutput()
        receive(&bytes, from: source, now: now, into: &output)
        return output
    }

    /// The forwarding path's form of ``receive(_:from:now:)``, which allocates nothing for a
    /// datagram of media: SRTP is removed in place, in `datagram` (afterwards its bytes are the
    /// packet the event carries, sharing its storage, or unspecified when refused), and what the
    /// peer produces is appended to `output`, whose arrays the caller empties and keeps.
    public func receive(_ datagram: inout [UInt8], from source: TransportAddress, now: Duration, into output: inout MediaPeerOutput) {
        guard !isClosed else {
            counters.afterClose += 1
            return
        }
        switch DatagramKind(classifying: datagram) {
        case .stun: receiveSTUN(datagram, from: source, now: now, into: &output)
        case .dtls: receiveDTLS(datagram, from: source, now: now, into: &output)
        case .rtp: receiveMedia(&datagram, isRTCP: false, from: source, now: now, into: &output)
        case .rtcp: receiveMedia(&datagram, isRTCP: true, from: source, now: now, into: &output)
        case .unknown: counters.malformed += 1
        }
    }

    /// Retransmits DTLS, or closes the peer when consent or the setup time has run out.
    public func handleTimeout(now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !isClosed else { return output }
        if case .connecting = state, now >= setupDeadline {
            close(.setupTimedOut, now: now, into: &output)
            return output
        }
        if ice.checkConsent(at: now) == .consentExpired {
            close(.consentLost, now: now, into: &output)
            return output
        }
        if let deadline = dtls.nextDeadline, now >= deadline {
            absorb(dtls.handleTimeout(now: now), now: now, into: &output)
        }
        return output
    }

    /// Ends the peer (the user left, or a new offer replaced it): a close_notify goes to the
    /// peer, and ``MediaPeerEvent/closed(_:)`` with ``MediaPeerCloseReason/closedByUs``.
    public func close(now: Duration) -> MediaPeerOutput {
        var output = MediaPeerOutput()
        guard !isClosed else { return output }
        close(.closedByUs, now: now, into: &output)
        return output
    }

    /// Protects an RTP packet for the peer; nil (and counted) when not connected or the packet
    /// is malformed.
    public func protect(rtp packet: [UInt8]) -> AddressedDatagram? {
        protect(packet, isRTCP: false)
    }

    /// In place, for the forwarding path (no allocation): protects the RTP packet
    /// `buffer[..<length]`, which has room after it for the tag (``SRTPProfile/tagLength`` of
    /// ``profile``). Returns the protected length and where it goes; nil (and counted) when not
    /// connected or the packet is malformed.
    public func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) -> (length: Int, destination: TransportAddress)? {
        guard case .connected(let destination) = state, let outbound else {
            counters.protectFailures += 1
            return nil
        }
        do throws(SRTPError) {
            return (try outbound.protect(rtp: buffer, length: length), destination)
        } catch {
            counters.protectFailures += 1
            return nil
        }
    }

    /// Protects an RTCP compound packet for the peer; nil (and counted) as for RTP.
    public func protect(rtcp packet: [UInt8]) -> AddressedDatagram? {
        protect(packet, isRTCP: true)
    }

    // MARK: - Inbound

    private func receiveSTUN(_ datagram: [UInt8], from source: TransportAddress, now: Duration, into output: inout MediaPeerOutput) {
        let answered = ice.receive(datagram, from: source, at: now)
        if let response = answered.response { output.datagrams.append(AddressedDatagram(bytes: response, destination: source)) }
        switch answered.refusal {
        case nil: break
        case .retransmitted: return
        case .replayed:
            counters.stunReplayed += 1
            return
        default:
            counters.stunRefused += 1
            return
        }
        if case .selected(let address) = answered.event {
            selected = address
            // A NAT rebinding moves media to the newly nominated address.
            if case .connected = state { state = .connected(address) }
        }
        if source == selected { lastCheckOnSelected = now }
        becomeConnectedIfReady(into: &output)
    }

    private func receiveDTLS(_ datagram: [UInt8], from source: TransportAddress, now: Duration, into output: inout MediaPeerOutput) {
        // A DTLS client may start once a check succeeded, before it nominates (RFC 8445 §8.1).
        guard ice.hasConsent(from: source, at: now) else {
            counters.dtlsWithoutConsent += 1
            return
        }
        dtlsPeer = source
        absorb(dtls.receive(datagram, now: now), now: now, into: &output)
    }

    private func receiveMedia(
        _ datagram: inout [UInt8], isRTCP: Bool, from source: TransportAddress, now: Duration, into output: inout MediaPeerOutput
    ) {
        guard let srtp else {
            counters.mediaBeforeKeys += 1
            return
        }
        if consents(source, at: now) {
            if let event = srtp.unprotectedEvent(inPlace: &datagram, isRTCP: isRTCP, counters: &counters) { output.events.append(event) }
            return
        }
        // From an address without consent: once connected, media that authenticates and is not
        // a replay can only be the peer's own (a NAT rebinding), and moves the path at once.
        guard case .connected = state else {
            counters.mediaWithoutConsent += 1
            return
        }
        var failures = MediaPeerCounters()
        guard let event = srtp.unprotectedEvent(inPlace: &datagram, isRTCP: isRTCP, counters: &failures) else {
            counters.mediaWithoutConsent += 1
            return
        }
        if case .selected(let address) = ice.adopt(source, at: now) {
            selected = address
            state = .connected(address)
            lastCheckOnSelected = now
            counters.pathMovesByMedia += 1
        }
        output.events.append(event)
    }

    /// `ice.hasConsent(from:at:)` on the packet path, reading only the one field it needs:
    /// the method, called on the stored agent, copied the whole agent (its strings and
    /// dictionaries retained and released) for every packet. The agent's timeout is this peer's.
    private func consents(_ source: TransportAddress, at now: Duration) -> Bool {
        ICELiteAgent.hasConsent(lastValidCheck: ice.lastValidCheck[source], at: now, timeout: consentTimeout)
    }

    // MARK: - DTLS and state

    private func absorb(_ result: DTLSEndpoint.Output, now: Duration, into output: inout MediaPeerOutput) {
        if let destination = dtlsPeer ?? selected {
            output.datagrams += result.datagrams.map { AddressedDatagram(bytes: $0, destination: destination) }
        }
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
                becomeConnectedIfReady(into: &output)
            case .failed(let error):
                close(.dtlsFailed(error), now: now, into: &output)
                return
            }
        }
    }

    private func becomeConnectedIfReady(into output: inout MediaPeerOutput) {
        guard case .connecting = state, let selected, let profile, srtp != nil else { return }
        state = .connected(selected)
        output.events.append(.connected(address: selected, profile: profile))
    }

    private func close(_ reason: MediaPeerCloseReason, now: Duration, into output: inout MediaPeerOutput) {
        if reason == .closedByUs || reason == .consentLost || reason == .setupTimedOut,
            let destination = selected ?? dtlsPeer
        {
            // A close_notify, so a peer still listening learns at once rather than by timeout.
            output.datagrams += dtls.close(now: now).datagrams.map { AddressedDatagram(bytes: $0, destination: destination) }
        }
        state = .closed(reason)
        srtp = nil
        output.events.append(.closed(reason))
    }

    private func protect(_ packet: [UInt8], isRTCP: Bool) -> AddressedDatagram? {
        guard case .connected(let destination) = state, let srtp else {
            counters.protectFailures += 1
            return nil
        }
        return srtp.protectedDatagram(of: packet, isRTCP: isRTCP, to: destination, counters: &counters)
    }
}
