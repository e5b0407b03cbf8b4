import CaucusMedia
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Drives one endpoint over a real UDP socket on the real monotonic clock: datagrams in,
/// datagrams out, timers fired when due. The only limit is a generous safety stop so a
/// broken peer fails the test instead of hanging it; nothing is asserted about speed.
struct DTLSOverUDP {
    let socket: UDPTestSocket
    let endpoint: DTLSEndpoint
    var peer: sockaddr_in?
    var events: [DTLSEndpoint.Event] = []
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init(endpoint: DTLSEndpoint, socket: UDPTestSocket, peer: sockaddr_in? = nil) {
        self.endpoint = endpoint
        self.socket = socket
        self.peer = peer
        origin = clock.now
    }

    var now: Duration { clock.now - origin }

    var keys: DTLSSRTPKeys? { DTLSPair.keys(events) }
    var failure: DTLSError? { DTLSPair.failure(events) }

    mutating func start() {
        send(endpoint.start(now: now))
    }

    /// Runs until `done` holds or the safety stop (60 s) passes; returns whether `done` held.
    mutating func run(until done: (Self) -> Bool) -> Bool {
        while now < .seconds(60) {
            if done(self) { return true }
            if let (datagram, from) = socket.receive() {
                peer = from
                send(endpoint.receive(datagram, now: now))
            }
            if let deadline = endpoint.nextDeadline, now >= deadline {
                send(endpoint.handleTimeout(now: now))
            }
        }
        return done(self)
    }

    mutating func send(_ output: DTLSEndpoint.Output) {
        events += output.events
        guard let peer else { return }
        for datagram in output.datagrams { socket.send(datagram, to: peer) }
    }
}
