/// A datagram a ``MediaPeer`` wants sent, and where to.
public struct AddressedDatagram: Sendable, Hashable {
    public var bytes: [UInt8]
    public var destination: TransportAddress

    public init(bytes: [UInt8], destination: TransportAddress) {
        self.bytes = bytes
        self.destination = destination
    }
}

/// Why a ``MediaPeer`` ended. Once closed, a peer stays closed: a new offer makes a new peer.
public enum MediaPeerCloseReason: Sendable, Hashable {
    /// No valid STUN binding request from the peer on the selected address for the consent
    /// timeout (RFC 7675: 30 s).
    case consentLost
    /// ICE or DTLS did not complete within the setup timeout.
    case setupTimedOut
    /// The handshake failed, or the peer ended the association (close_notify, fatal alert).
    case dtlsFailed(DTLSError)
    /// The server ended it (``MediaPeer/close(now:)``): the user left, or a new offer replaced it.
    case closedByUs
}

/// What happened during one call into a ``MediaPeer``.
public enum MediaPeerEvent: Sendable, Hashable {
    /// ICE selected `address` and DTLS keyed SRTP with `profile`: media may flow.
    case connected(address: TransportAddress, profile: SRTPProfile)
    /// An RTP packet from the peer, already unprotected.
    case rtp([UInt8])
    /// An RTCP compound packet from the peer, already unprotected.
    case rtcp([UInt8])
    case closed(MediaPeerCloseReason)
}

/// What one call into a ``MediaPeer`` produced: datagrams to send, in order, and events.
public struct MediaPeerOutput: Sendable {
    public var datagrams: [AddressedDatagram] = []
    public var events: [MediaPeerEvent] = []

    public init() {}
}

/// Datagrams a peer dropped, by why. Nothing a peer receives is ever thrown back at the
/// caller: every datagram is either used or counted here.
public struct MediaPeerCounters: Sendable, Hashable {
    /// STUN that the ICE-lite agent refused or did not answer (bad integrity, wrong user, …).
    public var stunRefused = 0
    /// Checks replayed from another address than the one they first came from: refused, unanswered.
    public var stunReplayed = 0
    /// Times the path moved to a new address on the peer's authenticated media (a NAT rebinding).
    public var pathMovesByMedia = 0
    /// DTLS records from an address that has not passed an ICE check.
    public var dtlsWithoutConsent = 0
    /// RTP or RTCP before DTLS keyed SRTP.
    public var mediaBeforeKeys = 0
    /// RTP or RTCP from an address without ICE consent (RFC 7675 §5.3) that is not the
    /// connected peer's own authenticated media.
    public var mediaWithoutConsent = 0
    /// SRTP or SRTCP whose tag did not verify: forged, corrupted, or keyed for another peer.
    public var authenticationFailures = 0
    /// SRTP or SRTCP already accepted, or older than the replay window.
    public var replays = 0
    /// Too short, a bad header, or a first byte no protocol on the port uses (RFC 7983).
    public var malformed = 0
    /// Anything received after the peer closed.
    public var afterClose = 0
    /// Outgoing packets that could not be protected (not connected, or a malformed packet).
    public var protectFailures = 0

    public init() {}

    /// Every datagram dropped on the way in.
    public var droppedInbound: Int {
        stunRefused + stunReplayed + dtlsWithoutConsent + mediaBeforeKeys + mediaWithoutConsent + authenticationFailures + replays
            + malformed + afterClose
    }
}
