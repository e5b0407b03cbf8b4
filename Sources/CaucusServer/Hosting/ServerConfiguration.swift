import CaucusAuth
import CaucusCore
import CaucusStore
import NIOCore

/// How a server runs. `caucus serve` fills it from flags, environment and defaults.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int
    /// Where the database, the server key and the development app live.
    public var dataDirectory: String
    /// Production apps; when empty, the development app is created and used.
    public var apps: [AppCredentials]
    /// Largest frame a client may send, in bytes.
    public var maxFrameBytes: Int
    /// Frames queued for one client before it is cut off as too slow.
    public var outboundQueueLimit: Int
    /// Bytes queued for one client before it is cut off as too slow (a write alone in the queue
    /// is always taken): frames are few and large when a client asks for snapshot after snapshot.
    public var outboundQueueBytes: Int = 64 << 20
    /// Recent events a session keeps to replay to a resuming client.
    public var replayWindow: Int
    /// How long news of other users joining, dropping or coming back may wait to be sent with
    /// the next (one write per window instead of one per join during a burst); zero sends at once.
    public var rosterWindow: Duration
    /// Which commits wait for the disk: by default those holding a message (see `SyncPolicy`).
    public var syncPolicy: SyncPolicy
    /// A PostgreSQL URL (`postgres://user@host:port/database`) for the shared store; nil keeps
    /// the embedded SQLite file in the data folder.
    public var storeURL: String?
    /// Events between two snapshots of a session's state, which a rebuild starts from; one is
    /// also saved at shutdown. 0: no snapshots, a rebuild replays the whole log.
    public var snapshotInterval: Int
    /// How often the server pings each client; one that sends nothing between two pings is closed.
    public var keepAliveInterval: Duration
    /// How long a connection may take to send each HTTP request whole (head and body, from its
    /// accept or its last answer), then, once upgraded, to join (or resume), and after a refused
    /// `join`, to try again; then it is closed (a WebSocket with 4008).
    public var joinDeadline: Duration
    /// Connections not joined yet that one remote address may hold at once, counted from their
    /// accept until they join: one more upgrade is closed with 4009. Large enough for a class
    /// behind one NAT opening its links at the same moment.
    public var maxWaitingPerAddress: Int
    /// Connections not joined yet that the server holds at once, from every address: one more
    /// is closed as soon as it is accepted. Nil: half of the descriptors the process may open
    /// beyond a reserve for the store and the media sockets (`DescriptorBudget`); the other
    /// half is for joined users.
    public var maxWaiting: Int?
    /// A plain HTTP port serving only `/healthz`, `/readyz` and `/metrics`, outside `maxWaiting`
    /// (with a small ceiling of its own), so a health check still answers while the main port
    /// holds its ceiling. Nil: none.
    public var healthPort: Int?
    /// The media port (UDP): ICE, DTLS and SRTP of every peer. 0 picks a free one, which every
    /// answer announces; set one behind a firewall or NAT.
    public var mediaPort: Int
    /// The IP address announced in every answer's one host candidate (`--media-address`).
    public var mediaAddress: String
    /// The address the media socket binds, when it is not the announced one (behind NAT: the
    /// local address the public one forwards to). Never a wildcard: see `MediaTransport`.
    public var mediaBindAddress: String?
    /// Datagram channels serving the media port, one per event loop (`SO_REUSEPORT`); a
    /// session's peers live on one of them. By default one: the kernel spreads a port's
    /// datagrams over its sockets by address, not by session, so with n loops about (n − 1)/n of
    /// a session's datagrams reach a loop that must hand them to its own (one session forwarded a
    /// packet for about 13 % less CPU on one loop than on two, `docs/benchmarks.md`). More pay
    /// only on a server whose many sessions need more than one core for media.
    public var mediaLoops: Int
    /// Runs of forwarded datagrams to one peer sent as one (UDP GSO, `--media-gso`): by
    /// default where the kernel cannot refuse it (`MediaSegmentationOffload`).
    public var mediaSegmentationOffload: MediaSegmentationOffload = .automatic
    /// ICE over TCP (RFC 6544) for peers without UDP: the passive TCP candidate's port. 0, the
    /// default: the UDP media port's number (or a free port when that one is taken); nil: no
    /// TCP candidate.
    public var mediaTCPPort: Int? = 0
    /// What ICE-TCP connections may hold, and for how long.
    public var mediaTCPLimits = MediaTCPLimits()
    /// What one slice of a large routing recomputation may cost on the media loop, in the
    /// streams its users may receive plus `ForwardingEngine.userCost` a user
    /// (`ForwardingEngine+SlicedRouting.swift`): about a millisecond by default. Forwarding goes
    /// on between slices.
    public var mediaRoutingSlice = 16_384
    /// How many bytes of recordings each app may keep in `dataDirectory` (`--recording-quota`);
    /// past it, recording stops with `quotaExceeded`. Nil: no limit but the disk's.
    public var recordingQuota: Int64?
    /// How long a connected peer keeps its media without a new ICE check (RFC 7675: 30 s).
    public var mediaConsentTimeout: Duration
    /// How often the media port's timer runs the peers' deadlines (DTLS retransmissions, consent),
    /// and each session's forwarding engine its periodic work (transport-cc feedback, layers,
    /// speakers; its repairs run at their own deadlines).
    public var mediaTickInterval: Duration
    /// Several nodes on one PostgreSQL store (`storeURL`): this node's address and the lease
    /// duration. Nil: one node, which serves every session of its store.
    public var cluster: ClusterConfiguration?
    /// HTTPS and WSS on `port` from this certificate and key (`--tls-cert`, `--tls-key`),
    /// reloaded on SIGHUP and when the files change; nil: plain HTTP.
    public var tls: TLSFiles?
    /// How often the certificate files are checked for a change.
    public var tlsCheckInterval: Duration = .seconds(5)
    /// With `tls`: a plain HTTP port that answers every request 308 to the HTTPS URL.
    public var httpRedirectPort: Int?
    /// The address students and other machines reach this server at (`--public-url`): the
    /// base of the console's invite links and of the redirect's Location.
    public var publicURL: PublicURL?
    /// TURN servers handed to every joined user with credentials of its own (`--turn-url`,
    /// `--turn-secret-file`); nil: none, and no reply carries `iceServers`.
    public var turn: TURNConfiguration?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "./caucus-data", apps: [AppCredentials] = [],
        maxFrameBytes: Int = 64 * 1024, outboundQueueLimit: Int = 1024, replayWindow: Int = 10_000,
        keepAliveInterval: Duration = .seconds(30), syncPolicy: SyncPolicy = .messages,
        rosterWindow: Duration = .milliseconds(5), mediaPort: Int = 0, mediaAddress: String = "127.0.0.1",
        mediaBindAddress: String? = nil, mediaLoops: Int = 1, mediaConsentTimeout: Duration = .seconds(30), mediaTickInterval: Duration = .milliseconds(50),
        storeURL: String? = nil, snapshotInterval: Int = 1_000, cluster: ClusterConfiguration? = nil,
        joinDeadline: Duration = .seconds(10), maxWaitingPerAddress: Int = 1_000
    ) {
        self.joinDeadline = joinDeadline
        self.maxWaitingPerAddress = maxWaitingPerAddress
        self.cluster = cluster
        self.storeURL = storeURL
        self.snapshotInterval = snapshotInterval
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.apps = apps
        self.maxFrameBytes = maxFrameBytes
        self.outboundQueueLimit = outboundQueueLimit
        self.replayWindow = replayWindow
        self.keepAliveInterval = keepAliveInterval
        self.syncPolicy = syncPolicy
        self.rosterWindow = rosterWindow
        self.mediaPort = mediaPort
        self.mediaAddress = mediaAddress
        self.mediaBindAddress = mediaBindAddress
        self.mediaLoops = mediaLoops
        self.mediaConsentTimeout = mediaConsentTimeout
        self.mediaTickInterval = mediaTickInterval
    }
}
