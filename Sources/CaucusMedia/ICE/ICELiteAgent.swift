/// The server's side of ICE: an ICE-lite agent (RFC 8445 §2.5), always controlled, with one
/// host candidate. It answers connectivity checks, takes the pair the peer nominates, and
/// drops the peer when consent lapses (RFC 7675). Pure: datagrams and time are inputs, the
/// datagrams to send and the events are outputs.
///
/// Checks that fail authentication are answered with an error and change nothing:
/// 400 when USERNAME or MESSAGE-INTEGRITY is missing, 401 when either is wrong (RFC 5389
/// §10.1.2). Requests without a valid FINGERPRINT are dropped unanswered, because on a
/// shared port they may not be STUN at all. A peer that claims the controlled role too gets
/// 487, so that it takes the controlling role a full agent must take opposite a lite one.
///
/// **A path moves only on a fresh, authenticated sign from the new address.** A check is
/// fresh when its transaction ID is one the agent has not accepted before: a captured check
/// replayed from another address is refused unanswered and changes nothing (`replayed`), and
/// one repeated from its own address is a STUN retransmission, answered again and otherwise
/// ignored (`retransmitted`). The peer's media is the other sign (``adopt(_:at:)``): SRTP that
/// authenticates and is not a replay can only come from the peer itself, so a NAT rebinding
/// moves media with the first packet from the new address instead of waiting for the next
/// check. The agent remembers the last ``rememberedTransactions`` transaction IDs it accepted.
public struct ICELiteAgent: Sendable {
    public let local: ICECredentials
    /// The peer's ufrag from its offer; the second half of every check's USERNAME.
    public let remoteUfrag: String
    /// How long a validated address keeps consent without a new check (RFC 7675 §5.1).
    public var consentTimeout: Duration = .seconds(30)
    public var software: String?

    public enum State: Hashable, Sendable {
        /// No nominated pair yet.
        case checking
        case connected(TransportAddress)
        /// Consent lapsed on the selected pair: the peer is to be dropped.
        case disconnected
    }

    public private(set) var state: State = .checking
    /// When each source address last passed a check: only these may send media.
    private(set) var lastValidCheck: [TransportAddress: Duration] = [:]
    /// The transaction IDs of accepted checks, with where each came from; oldest first in
    /// `transactionOrder`. A full agent's checks use a fresh ID each (RFC 8489 §6), and at one
    /// check per pair every 2.5 s or so, 1,024 cover far more than the consent window.
    private var acceptedTransactions: [STUNTransactionID: TransportAddress] = [:]
    private var transactionOrder: [STUNTransactionID] = []
    public static let rememberedTransactions = 1_024

    public init(local: ICECredentials, remoteUfrag: String) {
        self.local = local
        self.remoteUfrag = remoteUfrag
    }

    public enum Event: Hashable, Sendable {
        /// The peer nominated this address (the first time, or a new one after a NAT rebinding).
        case selected(TransportAddress)
        case consentExpired
    }

    public struct Output: Sendable {
        /// The response to send back to the check's source, if any.
        public var response: [UInt8]?
        public var event: Event?
        /// Why a request got an error or nothing, for counters and logs.
        public var refusal: Refusal?
    }

    public enum Refusal: Hashable, Sendable {
        case notSTUN
        case notABindingRequest
        case badFingerprint
        case missingCredentials
        case wrongUsername
        case wrongIntegrity
        case roleConflict
        /// Consent has lapsed: the peer is gone, whatever it sends.
        case peerDropped
        /// An accepted check's transaction ID from another address: a replay, never answered.
        case replayed
        /// An accepted check's transaction ID again from its own address: answered again, as
        /// STUN retransmissions are, but it refreshes nothing and moves nothing.
        case retransmitted
    }

    /// Handles one STUN datagram from `source` at `now` (any monotonic clock's reading).
    public mutating func receive(_ datagram: [UInt8], from source: TransportAddress, at now: Duration) -> Output {
        guard state != .disconnected else { return Output(refusal: .peerDropped) }
        guard let decoded = try? DecodedSTUNMessage(decoding: datagram) else { return Output(refusal: .notSTUN) }
        let request = decoded.message
        guard decoded.hasValidFingerprint else { return Output(refusal: .badFingerprint) }
        // Binding indications are keepalives: nothing to answer (RFC 8445 §11).
        guard request.type == .bindingRequest else { return Output(refusal: .notABindingRequest) }
        guard let username = request.username, decoded.message.attributes.contains(where: {
            if case .messageIntegrity = $0 { true } else { false }
        }) else {
            return Output(response: error(.badRequest, to: request, signed: false), refusal: .missingCredentials)
        }
        guard username == "\(local.ufrag):\(remoteUfrag)" else {
            return Output(response: error(.unauthorized, to: request, signed: false), refusal: .wrongUsername)
        }
        guard decoded.hasValidIntegrity(key: local.integrityKey) else {
            return Output(response: error(.unauthorized, to: request, signed: false), refusal: .wrongIntegrity)
        }
        if request.iceControlled != nil {
            return Output(response: error(.roleConflict, to: request, signed: true), refusal: .roleConflict)
        }
        if let original = acceptedTransactions[request.transactionID] {
            guard original == source else { return Output(refusal: .replayed) }
            return Output(response: success(to: request, from: source), refusal: .retransmitted)
        }
        remember(request.transactionID, from: source)
        lastValidCheck[source] = now
        let response = success(to: request, from: source)
        var event: Event?
        if request.hasUseCandidate, state != .connected(source) {
            state = .connected(source)
            event = .selected(source)
        }
        return Output(response: response, event: event)
    }

    /// Moves the selected pair to `source`, whose authenticated, fresh media the caller has
    /// just verified (see the type's notes), and gives it consent as a check would. Returns
    /// `selected` when the pair moved. Before a pair is nominated it does nothing.
    public mutating func adopt(_ source: TransportAddress, at now: Duration) -> Event? {
        guard case .connected(let current) = state else { return nil }
        lastValidCheck[source] = now
        guard current != source else { return nil }
        state = .connected(source)
        return .selected(source)
    }

    /// Whether media from `source` is to be accepted: it passed a check and still has consent.
    public func hasConsent(from source: TransportAddress, at now: Duration) -> Bool {
        Self.hasConsent(lastValidCheck: lastValidCheck[source], at: now, timeout: consentTimeout)
    }

    /// The rule itself, for a caller that reads the last check in place (`MediaPeer`).
    static func hasConsent(lastValidCheck last: Duration?, at now: Duration, timeout: Duration) -> Bool {
        guard let last else { return false }
        return now - last < timeout
    }

    /// Call on a timer: ends the session when the selected address's consent has lapsed,
    /// and forgets other addresses whose consent has.
    public mutating func checkConsent(at now: Duration) -> Event? {
        lastValidCheck = lastValidCheck.filter { now - $0.value < consentTimeout }
        guard case .connected(let selected) = state, lastValidCheck[selected] == nil else { return nil }
        state = .disconnected
        return .consentExpired
    }

    private mutating func remember(_ transaction: STUNTransactionID, from source: TransportAddress) {
        acceptedTransactions[transaction] = source
        transactionOrder.append(transaction)
        if transactionOrder.count > Self.rememberedTransactions {
            acceptedTransactions[transactionOrder.removeFirst()] = nil
        }
    }

    private func success(to request: STUNMessage, from source: TransportAddress) -> [UInt8] {
        var attributes: [STUNAttribute] = [.xorMappedAddress(source)]
        if let software { attributes.insert(.software(software), at: 0) }
        return STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: attributes)
            .encoded(integrityKey: local.integrityKey, fingerprint: true)
    }

    private func error(_ code: STUNErrorCode, to request: STUNMessage, signed: Bool) -> [UInt8] {
        STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(code)])
            .encoded(integrityKey: signed ? local.integrityKey : nil, fingerprint: true)
    }
}
