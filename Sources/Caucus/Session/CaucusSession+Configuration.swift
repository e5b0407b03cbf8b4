import Logging

extension CaucusSession {
    /// How a session connects. The defaults suit apps; tests shorten the delays.
    public struct Configuration: Sendable {
        /// The largest frame accepted or sent. Snapshots of big sessions are large.
        public var maxFrameSize: Int
        /// How long a call waits for its reply before throwing `SessionError.timedOut`.
        public var requestTimeout: Duration
        /// How often the SDK pings the server; a connection that stops answering is treated
        /// as dropped and reconnected.
        public var pingInterval: Duration
        /// Delays between reconnect attempts: from `initial`, doubling, at most `maximum`.
        public var reconnectDelay: ClosedRange<Duration>
        /// How long to keep trying beyond the server's reconnect grace (after which the server
        /// gives the seat up anyway).
        public var reconnectExtraTime: Duration
        public var logger: Logger
        /// How often the SDK checks with the server that no event went missing on the way
        /// (a `ping` with `after`; on a miss it takes a fresh snapshot and reports
        /// `resynchronized`).
        public var missedEventCheckInterval: Duration = .seconds(20)

        public init(
            maxFrameSize: Int = 16 << 20, requestTimeout: Duration = .seconds(30), pingInterval: Duration = .seconds(20),
            reconnectDelay: ClosedRange<Duration> = .milliseconds(100) ... .seconds(5), reconnectExtraTime: Duration = .seconds(5),
            logger: Logger = Configuration.quietLogger
        ) {
            self.maxFrameSize = maxFrameSize
            self.requestTimeout = requestTimeout
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

        /// The delay before reconnect attempt `attempt` (0 for the first), with ±25 % jitter so
        /// that clients dropped together (a server restart) do not all return at once.
        func delay(beforeAttempt attempt: Int) -> Duration {
            let doubled = min(reconnectDelay.lowerBound * (1 << min(attempt, 16)), reconnectDelay.upperBound)
            return doubled * Double.random(in: 0.75...1.25)
        }
    }
}
