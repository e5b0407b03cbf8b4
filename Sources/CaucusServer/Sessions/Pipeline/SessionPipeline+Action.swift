import CaucusCore
import CaucusProtocol
import CaucusStore

extension SessionPipeline {
    /// What the shell around the pipeline must do, in the order given.
    enum Action {
        /// Write these events to the store as one batch, then report `batchStored()` or
        /// `storeFailed()`. At most one is under way at a time. With a snapshot (the state
        /// at the batch's last event), save it once the batch is stored; its failure costs
        /// only a longer rebuild.
        case append([SequencedEvent], snapshot: StoredSnapshot?)
        /// Send each connection its frames, in order, each connection's in one write.
        case send([Delivery])
        /// Send every one of these connections the same frames, in order, in one write each
        /// (held roster news: everyone present was owed the same joins).
        case sendShared([Connection], frames: [Frame])
        /// Send a resuming connection its reply and missed events, in order, before anything
        /// sent to it after: under flow control, as the socket takes them, not counted
        /// against the bound that cuts off a slow client (a replay may be the whole window).
        case replay(Connection, frames: [Frame])
        /// The session answered these requests of the connection as it broke (before its
        /// close): whatever else would answer them, such as their caller resumed after the
        /// close, stays silent, so that each request is answered once.
        case answered(Connection, requestIDs: [Int])
        /// Close a connection after what was sent to it.
        case close(Connection, CloseCode, reason: String)
        /// Resume the callers waiting on these tickets (with the store's failure, if any).
        case complete([Ticket], failure: CaucusError?)
        /// The session's next deadline changed: call `tick(at:)` then (nil: no deadline).
        case scheduleTick(at: Instant?)
        /// Roster news is being held: call `rosterWindowEnded()` after this long.
        case startRosterWindow(Duration)
        /// The session ended or broke: free its name (after the other actions: a client told
        /// the session ended that joins the name again at once is let in by the join's retry).
        case sessionClosed
    }

    /// One connection's share of a delivery.
    struct Delivery {
        let connection: Connection
        let frames: [Frame]
    }
}

/// How the pipeline turns what it sends into frames: bytes on the server, plain values in
/// tests. Each event is encoded once and the same frame goes to every recipient.
protocol SessionFrameEncoding {
    associatedtype Frame
    func frame(_ frame: ServerFrame) -> Frame
    /// What `frame` takes in memory, as the replay window counts it.
    func byteCount(of frame: Frame) -> Int
    /// A join reply: every one carries the whole user list, which an encoding may keep
    /// encoded between replies (the server's does; see `EncodedUserList`).
    func joinedReply(re requestID: Int, user: UserID, secret: String, snapshot: SessionSnapshot, iceServers: [ICEServer]) -> Frame
}

extension SessionFrameEncoding {
    func joinedReply(re requestID: Int, user: UserID, secret: String, snapshot: SessionSnapshot, iceServers: [ICEServer]) -> Frame {
        frame(.reply(re: requestID, result: .joined(user: user, secret: secret, snapshot: snapshot, iceServers: iceServers)))
    }
}
