import CoreMetrics
import NIOConcurrencyHelpers

/// Bounds the connections that have not joined yet, from the moment they are accepted: each
/// one holds a descriptor and some memory before it proves anything (no token is read before
/// `join`), so such connections must neither stay for ever nor be opened without bound.
///
/// - Each connection has a deadline: to send each HTTP request (head and body,
///   `RequestDeadline`) and, once upgraded, to join (`WebSocketConnectionHandler`).
/// - The server holds at most `ceiling` of them at once, from every address: one more is
///   closed as soon as it is accepted. The ceiling sits under the process's descriptor limit
///   with room left for joined users and the store (`DescriptorBudget`).
/// - Each address may hold `limitPerAddress` of them: `overLimitPerAddress` more are still
///   read (plain HTTP is answered), but an upgrade is closed with 4009 at once; beyond those, a
///   new connection is closed as soon as it is accepted, as at the ceiling, so that one address
///   cannot take the whole ceiling. A connection stops counting when it joins or resumes, so a large class
///   behind one address only needs the limit to cover the connections opened at the same moment.
final class JoinAdmission: Sendable {
    /// How long a connection may take to send a request, or to join once upgraded; after a
    /// refused `join` or `resume`, how long it has to try again.
    let deadline: Duration
    /// Connections not yet joined that one remote address may hold.
    let limitPerAddress: Int
    /// Connections not yet joined that the server holds at once.
    let ceiling: Int
    /// Connections one address may hold beyond `limitPerAddress` (for plain HTTP: its pages
    /// and API calls while its limit is taken): as many again, and at least 64.
    var overLimitPerAddress: Int { max(limitPerAddress, 64) }
    private let counts = NIOLockedValueBox(Counts())
    /// Connections closed at the join deadline, refused over the address's limit, refused at
    /// the ceiling, and closed at the request deadline.
    private let expired: CoreMetrics.Counter?
    private let refused: CoreMetrics.Counter?
    private let overCeiling: CoreMetrics.Counter?
    private let requestExpired: CoreMetrics.Counter?

    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
        /// Connections over their address's limit (an upgrade is refused), by address.
        var overByAddress: [String: Int] = [:]
    }

    /// What a new connection is.
    enum Verdict: Sendable, Equatable {
        /// Counted under its address until it joins.
        case waiting
        /// Its address has its limit: an upgrade is refused (4009).
        case overAddressLimit
        /// The server holds its ceiling, or the address twice its limit: the connection is
        /// closed at once (counted nowhere).
        case overCeiling
    }

    init(
        deadline: Duration, limitPerAddress: Int, ceiling: Int = .max, expired: CoreMetrics.Counter? = nil,
        refused: CoreMetrics.Counter? = nil, overCeiling: CoreMetrics.Counter? = nil, requestExpired: CoreMetrics.Counter? = nil
    ) {
        self.requestExpired = requestExpired
        self.deadline = deadline
        self.limitPerAddress = limitPerAddress
        self.ceiling = ceiling
        self.expired = expired
        self.refused = refused
        self.overCeiling = overCeiling
    }

    /// A connection from `address` was accepted: counted until `release`, unless over the ceiling.
    func accept(_ address: String) -> AdmissionTicket? {
        let verdict = counts.withLockedValue { counts -> Verdict in
            guard counts.total < ceiling else { return .overCeiling }
            if counts.byAddress[address, default: 0] < limitPerAddress {
                counts.byAddress[address, default: 0] += 1
                counts.total += 1
                return .waiting
            }
            guard counts.overByAddress[address, default: 0] < overLimitPerAddress else { return .overCeiling }
            counts.overByAddress[address, default: 0] += 1
            counts.total += 1
            return .overAddressLimit
        }
        guard verdict != .overCeiling else {
            overCeiling?.increment()
            return nil
        }
        return AdmissionTicket(admission: self, address: address, countsAddress: verdict == .waiting)
    }

    /// Counts a connection that was not counted at accept (one served without `accept`) as
    /// waiting to join; nil (and counted as refused) if its address already has its limit.
    func admit(_ address: String) -> AdmissionTicket? {
        guard let ticket = accept(address) else { return nil }
        guard ticket.countsAddress else {
            ticket.release()
            upgradeRefused()
            return nil
        }
        return ticket
    }

    fileprivate func release(_ address: String, countsAddress: Bool) {
        counts.withLockedValue { counts in
            counts.total -= 1
            if countsAddress {
                Self.decrement(&counts.byAddress, address)
            } else {
                Self.decrement(&counts.overByAddress, address)
            }
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ address: String) {
        guard let count = counts[address] else { return }
        counts[address] = count > 1 ? count - 1 : nil
    }

    /// An upgrade from an address over its limit was closed with 4009.
    func upgradeRefused() { refused?.increment() }

    /// A connection was closed for not joining in time.
    func deadlinePassed() { expired?.increment() }

    /// A connection was closed for not sending a whole request in time.
    func requestDeadlinePassed() { requestExpired?.increment() }

    /// Connections from `address` waiting to join (for tests).
    func waitingCount(from address: String) -> Int { counts.withLockedValue { $0.byAddress[address] ?? 0 } }

    /// Connections not joined yet, from every address (for tests and the gauge).
    var waitingTotal: Int { counts.withLockedValue { $0.total } }
}

/// One accepted connection's place among those not joined yet, given up once (when it joins,
/// or when it closes, whichever comes first).
final class AdmissionTicket: Sendable {
    private let admission: JoinAdmission
    let address: String
    /// Whether it counts under its address (false: the address had its limit; an upgrade is refused).
    let countsAddress: Bool
    private let held = NIOLockedValueBox(true)

    fileprivate init(admission: JoinAdmission, address: String, countsAddress: Bool) {
        self.admission = admission
        self.address = address
        self.countsAddress = countsAddress
    }

    func release() {
        let wasHeld = held.withLockedValue { held in
            defer { held = false }
            return held
        }
        if wasHeld { admission.release(address, countsAddress: countsAddress) }
    }
}
