/// The client's side of ICE against an ICE-lite server: a full agent in the controlling role
/// with one remote candidate. It sends checks with USE-CANDIDATE (so the first success
/// nominates the pair), retransmits them on RFC 5389's schedule, and once connected keeps
/// consent with a check every few seconds (RFC 7675). Pure, like ``ICELiteAgent``.
public struct ICEControllingAgent: Sendable {
    public let local: ICECredentials
    public let remote: ICECredentials
    public let remoteAddress: TransportAddress
    public let tieBreaker: UInt64
    /// First retransmission interval; each next one doubles (RFC 5389 §7.2.1).
    public var retransmissionTimeout: Duration = .milliseconds(500)
    /// Requests sent before giving up, the last followed by a wait of 16 × the timeout.
    public var maximumRequests = 7
    public var consentInterval: Duration = .seconds(5)
    public var consentTimeout: Duration = .seconds(30)

    public enum State: Hashable, Sendable {
        case new
        case checking
        case connected
        /// No success within the schedule, an error response, or consent lost.
        case failed(Failure)
    }

    public enum Failure: Hashable, Sendable {
        case timedOut
        case rejected(code: Int)
        case consentLost
    }

    public private(set) var state: State = .new
    /// The address the server saw this agent at (its XOR-MAPPED-ADDRESS).
    public private(set) var mappedAddress: TransportAddress?

    private var transaction: STUNTransactionID?
    private var requestsSent = 0
    private var nextTransmission: Duration?
    private var lastResponse: Duration?

    public init(local: ICECredentials, remote: ICECredentials, remoteAddress: TransportAddress, tieBreaker: UInt64) {
        self.local = local
        self.remote = remote
        self.remoteAddress = remoteAddress
        self.tieBreaker = tieBreaker
    }

    /// A datagram to send to ``remoteAddress``.
    public typealias Datagram = [UInt8]

    /// Begins checking: returns the first check.
    public mutating func start(at now: Duration) -> Datagram? {
        guard state == .new else { return nil }
        state = .checking
        return newCheck(at: now)
    }

    /// When ``tick(at:)`` next has something to do, for the caller's timer.
    public var nextDeadline: Duration? {
        switch state {
        case .checking, .connected: nextTransmission
        case .new, .failed: nil
        }
    }

    /// Retransmits, sends consent checks, or fails, as the schedule says at `now`.
    public mutating func tick(at now: Duration) -> Datagram? {
        guard let due = nextTransmission, now >= due else { return nil }
        switch state {
        case .checking:
            guard requestsSent < maximumRequests else {
                state = .failed(.timedOut)
                return nil
            }
            return send(at: now)
        case .connected:
            if let lastResponse, now - lastResponse >= consentTimeout {
                state = .failed(.consentLost)
                return nil
            }
            return newCheck(at: now)
        case .new, .failed:
            return nil
        }
    }

    /// Handles a STUN datagram that arrived from `source`.
    public mutating func receive(_ datagram: [UInt8], from source: TransportAddress, at now: Duration) {
        guard source == remoteAddress, let transaction,
            let decoded = try? DecodedSTUNMessage(decoding: datagram),
            decoded.message.transactionID == transaction, decoded.hasValidFingerprint
        else { return }
        switch decoded.message.type {
        case .bindingSuccess:
            guard decoded.hasValidIntegrity(key: remote.integrityKey) else { return }
            self.transaction = nil
            mappedAddress = decoded.message.xorMappedAddress
            lastResponse = now
            state = .connected
            nextTransmission = now + consentInterval
        case .bindingError:
            // Only while checking: a consent check's error is as good as no answer.
            guard state == .checking else { return }
            state = .failed(.rejected(code: decoded.message.errorCode?.code ?? 0))
            self.transaction = nil
        default:
            return
        }
    }

    private mutating func newCheck(at now: Duration) -> Datagram {
        transaction = .random()
        requestsSent = 0
        return send(at: now)
    }

    private mutating func send(at now: Duration) -> Datagram {
        requestsSent += 1
        if state == .checking {
            // 0.5 s, 1 s, 2 s, … between sends, then 16 × the timeout after the last.
            let wait = requestsSent < maximumRequests ? retransmissionTimeout * (1 << (requestsSent - 1)) : retransmissionTimeout * 16
            nextTransmission = now + wait
        } else {
            nextTransmission = now + consentInterval
        }
        let message = STUNMessage(type: .bindingRequest, transactionID: transaction ?? .random(), attributes: [
            .username("\(remote.ufrag):\(local.ufrag)"),
            .priority(ICEPriority.peerReflexive),
            .iceControlling(tieBreaker: tieBreaker),
            .useCandidate,
        ])
        return message.encoded(integrityKey: remote.integrityKey, fingerprint: true)
    }
}
