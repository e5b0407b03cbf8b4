import Foundation
import Logging

extension CaucusSession {
    /// How a session connects. The defaults suit apps; tests shorten the delays.
    public struct Configuration: Sendable {
        /// The largest frame accepted or sent. Snapshots of big sessions are large.
        public var maxFrameSize: Int
        /// How long a call waits for its reply before throwing `SessionError.timedOut`.
        public var requestTimeout: Duration
        /// How long opening a connection (TCP, then the WebSocket upgrade) may take before the
        /// attempt is abandoned and counted as failed. Short, and separate from
        /// `requestTimeout`: a proxy whose upstream is down, or a path that swallows packets,
        /// must cost one short attempt, not the server's whole reconnect grace. The same bound,
        /// counted from the last frame heard, applies to what must be answered for the
        /// connection to count as alive: a resume's reply and the ping after its replay, a
        /// keepalive or network-change ping, and `leave()`.
        public var connectTimeout: Duration
        /// How often the SDK pings the server while connected. A ping not answered within
        /// `connectTimeout` (of silence) means the connection died without a word: it is
        /// dropped and the seat resumed on a new one. So a silently dead connection is noticed
        /// within `pingInterval + connectTimeout` (20 s by default). A network change
        /// (`CaucusSession.networkDidChange()`, called by the SDK itself on Apple platforms)
        /// checks at once instead.
        public var pingInterval: Duration
        /// Delays between reconnect attempts: the first attempt comes at once, the second
        /// after `lowerBound`, then doubling, at most `upperBound` (each ±25 % jitter).
        public var reconnectDelay: ClosedRange<Duration>
        /// How long to keep trying beyond the server's reconnect grace (after which the server
        /// gives the seat up anyway).
        public var reconnectExtraTime: Duration
        public var logger: Logger
        /// How often the SDK checks with the server that no event went missing on the way
        /// (a `ping` with `after`; on a miss it takes a fresh snapshot and reports
        /// `resynchronized`).
        public var missedEventCheckInterval: Duration = .seconds(20)
        /// Several nodes sharing one store: the other nodes' URLs (`ws://host:port/ws`), tried
        /// in turn after the one given to `join` when the node serving the session cannot be
        /// reached, so that the seat outlives that node. Empty for one server, or when one
        /// address (a load balancer) stands in front of every node. A join or resume sent to a
        /// node that does not serve the session is redirected on its own either way.
        public var nodeURLs: [URL] = []
        /// The codec of this user's camera video and screen share, sent and received: `.vp8`
        /// (the default) or `.h264` (what VideoToolbox encodes on Apple devices). The server
        /// never transcodes: users who chose another codec do not see each other's video
        /// (their slot maps say `unplayable`), so a session's apps agree on one.
        public var videoCodec = VideoCodec.vp8
        /// Certificate authorities trusted for `wss://` beside the system's: a private CA's
        /// certificate (see `TrustRoot`). Empty by default: the system's trust alone. A server
        /// whose certificate none of them signed fails `join` at once with
        /// `SessionError.tlsFailed`.
        public var trustRoots: [TrustRoot] = []

        /// The codecs camera video and screen share may use.
        public enum VideoCodec: Sendable, Hashable {
            case vp8, h264

            var codec: MediaCodec { self == .vp8 ? .vp8 : .h264 }
        }

        public init(
            maxFrameSize: Int = 16 << 20, requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
            pingInterval: Duration = .seconds(15),
            reconnectDelay: ClosedRange<Duration> = .milliseconds(250) ... .seconds(2), reconnectExtraTime: Duration = .seconds(5),
            logger: Logger = Configuration.quietLogger
        ) {
            self.maxFrameSize = maxFrameSize
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.pingInterval = pingInterval
            self.reconnectDelay = reconnectDelay
            self.reconnectExtraTime = reconnectExtraTime
            self.logger = logger
        }

        /// A logger that reports only errors.
        public static var quietLogger: Logger {
            var logger = Logger(label: "caucus.sdk")
            logger.logLevel = .error
            return logger
        }
    }
}
