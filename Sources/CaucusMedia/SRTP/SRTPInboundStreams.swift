/// What an SRTP context keeps per SSRC of what it receives (a rollover counter and a replay
/// window), bounded. The SSRC in a packet is the sender's to write, and every packet whose tag
/// checks (the peer holds the keys) would otherwise add a record for good: a peer sending
/// from SSRCs without end grew the server's memory without end.
///
/// At most ``capacity`` SSRCs are kept; a new one past it takes the place of the one that
/// received nothing for longest. A stream in use is never the one to go, so a real client's
/// streams (a handful, a few dozen over a day of renegotiations) are never forgotten; what
/// goes is a stream long silent, whose next packet, if any, starts its record again.
struct SRTPInboundStreams<State> {
    /// Enough for every stream a client sends at once (audio, simulcast video and screen, each
    /// with its RTX) several times over.
    static var standardCapacity: Int { 64 }

    struct Entry {
        var state: State
        var lastUsed: UInt64
    }

    let capacity: Int
    private var streams: [UInt32: Entry] = [:]
    /// Counts packets accepted: a stream's last use, without reading a clock.
    private var uses: UInt64 = 0

    init(capacity: Int = Self.standardCapacity) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { streams.count }

    typealias Position = Dictionary<UInt32, Entry>.Index

    /// Where `ssrc`'s state is, to read it and then ``accept(_:for:at:)`` in place.
    func position(of ssrc: UInt32) -> Position? { streams.index(forKey: ssrc) }

    func state(at position: Position) -> State { streams.values[position].state }

    func state(of ssrc: UInt32) -> State? { streams[ssrc]?.state }

    /// Keeps `state` for `ssrc` after a packet passed (at `position` when it was known).
    mutating func accept(_ state: State, for ssrc: UInt32, at position: Position?) {
        uses &+= 1
        if let position {
            streams.values[position] = Entry(state: state, lastUsed: uses)
            return
        }
        if streams.count >= capacity, let stalest = streams.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            streams[stalest] = nil
        }
        streams[ssrc] = Entry(state: state, lastUsed: uses)
    }

    func contains(_ ssrc: UInt32) -> Bool { streams[ssrc] != nil }
}
