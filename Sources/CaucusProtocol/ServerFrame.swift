import CaucusCore

/// Frames the server sends: replies (`re`) and events (`seq`).
public enum ServerFrame: Sendable, Equatable {
    case reply(re: Int, result: ReplyResult)
    /// `re` is null when the request's id could not be read.
    case error(re: Int?, ErrorBody)
    /// An event, written as a client may see it (`WireEvent`): never a claim or a password.
    case event(SequencedEvent)
    /// An event of a type this build does not know, from a newer server: skip it; its `seq`
    /// still counts as seen. (Only ever decoded; see "Versions" in `docs/protocol.md`.)
    case unknownEvent(seq: Int, at: Instant, type: String)
    /// Which user fills each of this connection's media receive slots, by mid: sent after a
    /// `mediaOffer` and whenever that changes. Per connection, not a session event: no `seq`.
    /// `unplayable` lists what this connection may receive but its answer cannot carry.
    ///
    /// `activeSpeakers`, when present, lists the speakers the audio slots of the connection's
    /// location follow, loudest first: the frame then carries the current map with them (sent
    /// when they change, at most twice a second, and on arriving in a location), so a client
    /// that reads only `slots` still reads a true map.
    case mediaSlots([MediaSlot], unplayable: [UnplayableMedia] = [], activeSpeakers: [UserID]? = nil)
}

/// What a connection's slot map says: its slots, and the publications it may receive but
/// cannot (the server never sends what the subscriber cannot decode).
public struct MediaSlotMap: Sendable, Equatable {
    public var slots: [MediaSlot]
    public var unplayable: [UnplayableMedia]

    public init(slots: [MediaSlot], unplayable: [UnplayableMedia] = []) {
        self.slots = slots
        self.unplayable = unplayable
    }
}

/// A publication the subscriber may receive (same location, nothing forbids it) that the
/// server does not send it, and why.
public struct UnplayableMedia: Sendable, Equatable, Codable {
    public enum Reason: String, Sendable, Equatable, Codable {
        /// The subscriber's answer has no codec the publisher sends (say, H.264 to a peer
        /// that offered only VP8).
        case codec
    }

    public let user: UserID
    /// `audio`, `video` or `screenShare`.
    public let kind: String
    public let reason: Reason

    public init(user: UserID, kind: String, reason: Reason) {
        self.user = user
        self.kind = kind
        self.reason = reason
    }
}

/// One receive slot of a user's media peer, as the slot map frame tells it.
public struct MediaSlot: Sendable, Equatable, Codable {
    /// The offer's section that carries the slot.
    public let mid: String
    /// `audio`, `video` or `screenShare`.
    public let kind: String
    /// The publisher filling the slot; absent while it is empty.
    public let user: UserID?

    public init(mid: String, kind: String, user: UserID?) {
        self.mid = mid
        self.kind = kind
        self.user = user
    }
}

/// What a successful request returns.
public enum ReplyResult: Sendable, Equatable {
    /// After a join: who you are, the secret to resume with, and the session as you see it;
    /// with TURN configured, the TURN servers to relay media through, with fresh credentials.
    case joined(user: UserID, secret: String, snapshot: SessionSnapshot, iceServers: [ICEServer] = [])
    /// After a resume: either the missed events follow (`replayingFrom` is the first seq sent),
    /// or, if they are no longer all kept, a fresh snapshot; and fresh TURN credentials, if any.
    /// `mediaKept`: the server still has the user's media peer, alive, and forwarded its media
    /// meanwhile; the client keeps that peer rather than offering again.
    case resumed(user: UserID, replayingFrom: Int?, snapshot: SessionSnapshot?, iceServers: [ICEServer] = [], mediaKept: Bool = false)
    /// A command was carried out; `seq` is that of its last event (nil if it caused none).
    case done(seq: Int?)
    case preList([PlannedRoom])
    case committed(BreakoutSnapshot)
    case started(Bool)
    case snapshot(SessionSnapshot)
    /// Before joining, both nil. Once joined, `seq` is the session's last event delivered, and
    /// `sent` how many events after the ping's `after` up to `seq` were sent to this seat (nil
    /// without `after`, or when the server no longer keeps them): a client that received
    /// fewer missed one.
    case pong(seq: Int?, sent: Int?)
    /// After a `mediaOffer`: the server's SDP answer.
    case mediaAnswer(sdp: String)
    /// After a `getIceServers`: the TURN servers with fresh credentials (none without TURN).
    case iceServers([ICEServer])
}

extension ServerFrame: Codable {
    private enum Keys: String, CodingKey { case re, result, error, status, seq, at, event, media }
    private enum MediaKeys: String, CodingKey { case slots, unplayable, activeSpeakers }
    private enum EventKeys: String, CodingKey { case type }
    private enum ResultKeys: String, CodingKey {
        case user, secret, snapshot, replayingFrom, seq, preList, committed, started, pong, sent, sdp, iceServers, mediaKept
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .reply(let re, let result):
            try c.encode(re, forKey: .re)
            var r = c.nestedContainer(keyedBy: ResultKeys.self, forKey: .result)
            switch result {
            case .joined(let user, let secret, let snapshot, let iceServers):
                try r.encode(user, forKey: .user)
                try r.encode(secret, forKey: .secret)
                try r.encode(snapshot, forKey: .snapshot)
                if !iceServers.isEmpty { try r.encode(iceServers, forKey: .iceServers) }
            case .resumed(let user, let from, let snapshot, let iceServers, let mediaKept):
                try r.encode(user, forKey: .user)
                try r.encodeIfPresent(from, forKey: .replayingFrom)
                try r.encodeIfPresent(snapshot, forKey: .snapshot)
                if !iceServers.isEmpty { try r.encode(iceServers, forKey: .iceServers) }
                if mediaKept { try r.encode(true, forKey: .mediaKept) }
            case .done(let seq): try r.encodeIfPresent(seq, forKey: .seq)
            case .preList(let plan): try r.encode(plan, forKey: .preList)
            case .committed(let breakout): try r.encode(breakout, forKey: .committed)
            case .started(let started): try r.encode(started, forKey: .started)
            case .snapshot(let snapshot): try r.encode(snapshot, forKey: .snapshot)
            case .pong(let seq, let sent):
                try r.encode(true, forKey: .pong)
                try r.encodeIfPresent(seq, forKey: .seq)
                try r.encodeIfPresent(sent, forKey: .sent)
            case .mediaAnswer(let sdp): try r.encode(sdp, forKey: .sdp)
            case .iceServers(let servers): try r.encode(servers, forKey: .iceServers)
            }
        case .error(let re, let body):
            try c.encode(re, forKey: .re)
            try c.encode(body, forKey: .error)
        case .event(let event):
            try c.encode(event.seq, forKey: .seq)
            try c.encode(event.at, forKey: .at)
            try c.encode(WireEvent(event.event), forKey: .event)
        case .unknownEvent(let seq, let at, let type):
            try c.encode(seq, forKey: .seq)
            try c.encode(at, forKey: .at)
            var e = c.nestedContainer(keyedBy: EventKeys.self, forKey: .event)
            try e.encode(type, forKey: .type)
        case .mediaSlots(let slots, let unplayable, let speakers):
            var m = c.nestedContainer(keyedBy: MediaKeys.self, forKey: .media)
            try m.encode(slots, forKey: .slots)
            if !unplayable.isEmpty { try m.encode(unplayable, forKey: .unplayable) }
            if let speakers { try m.encode(speakers, forKey: .activeSpeakers) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        if c.contains(.seq) && !c.contains(.re) {
            let seq = try c.decode(Int.self, forKey: .seq)
            let at = try c.decode(Instant.self, forKey: .at)
            let type = try c.nestedContainer(keyedBy: EventKeys.self, forKey: .event).decode(String.self, forKey: .type)
            guard Event.Kind(rawValue: type) != nil else {
                self = .unknownEvent(seq: seq, at: at, type: type)
                return
            }
            self = .event(SequencedEvent(seq: seq, at: at, event: try c.decode(WireEvent.self, forKey: .event).event))
            return
        }
        if c.contains(.media) && !c.contains(.re) {
            let m = try c.nestedContainer(keyedBy: MediaKeys.self, forKey: .media)
            self = .mediaSlots(
                try m.decodeIfPresent([MediaSlot].self, forKey: .slots) ?? [],
                unplayable: try m.decodeIfPresent([UnplayableMedia].self, forKey: .unplayable) ?? [],
                activeSpeakers: try m.decodeIfPresent([UserID].self, forKey: .activeSpeakers))
            return
        }
        let re = try c.decodeIfPresent(Int.self, forKey: .re)
        if let body = try c.decodeIfPresent(ErrorBody.self, forKey: .error) {
            self = .error(re: re, body)
            return
        }
        guard let re else {
            throw DecodingError.dataCorruptedError(forKey: .re, in: c, debugDescription: "A reply needs re.")
        }
        let r = try c.nestedContainer(keyedBy: ResultKeys.self, forKey: .result)
        let result: ReplyResult
        if r.contains(.secret) {
            result = .joined(
                user: try r.decode(UserID.self, forKey: .user), secret: try r.decode(String.self, forKey: .secret),
                snapshot: try r.decode(SessionSnapshot.self, forKey: .snapshot),
                iceServers: try r.decodeIfPresent([ICEServer].self, forKey: .iceServers) ?? [])
        } else if r.contains(.user) {
            result = .resumed(
                user: try r.decode(UserID.self, forKey: .user), replayingFrom: try r.decodeIfPresent(Int.self, forKey: .replayingFrom),
                snapshot: try r.decodeIfPresent(SessionSnapshot.self, forKey: .snapshot),
                iceServers: try r.decodeIfPresent([ICEServer].self, forKey: .iceServers) ?? [],
                mediaKept: try r.decodeIfPresent(Bool.self, forKey: .mediaKept) ?? false)
        } else if r.contains(.iceServers) {
            result = .iceServers(try r.decode([ICEServer].self, forKey: .iceServers))
        } else if r.contains(.preList) {
            result = .preList(try r.decode([PlannedRoom].self, forKey: .preList))
        } else if r.contains(.committed) {
            result = .committed(try r.decode(BreakoutSnapshot.self, forKey: .committed))
        } else if r.contains(.started) {
            result = .started(try r.decode(Bool.self, forKey: .started))
        } else if r.contains(.snapshot) {
            result = .snapshot(try r.decode(SessionSnapshot.self, forKey: .snapshot))
        } else if r.contains(.pong) {
            result = .pong(seq: try r.decodeIfPresent(Int.self, forKey: .seq), sent: try r.decodeIfPresent(Int.self, forKey: .sent))
        } else if r.contains(.sdp) {
            result = .mediaAnswer(sdp: try r.decode(String.self, forKey: .sdp))
        } else {
            result = .done(seq: try r.decodeIfPresent(Int.self, forKey: .seq))
        }
        self = .reply(re: re, result: result)
    }
}
