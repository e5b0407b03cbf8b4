import ArgumentParser
import CaucusAuth
import CaucusServer
import CaucusStore
import CaucusStorePostgres
import Foundation
import Logging
import NIOCore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the session server.",
        discussion: """
            With no options it listens on 127.0.0.1:8080, keeps its data in ./caucus-data, and makes a \
            development app on first start. Each option can also come from the environment: CAUCUS_HOST, \
            CAUCUS_PORT, CAUCUS_DATA, CAUCUS_CONFIG, CAUCUS_STORE, CAUCUS_SYNC, CAUCUS_SNAPSHOT_EVERY, \
            CAUCUS_REPLAY_WINDOW, CAUCUS_ROSTER_WINDOW, CAUCUS_JOIN_DEADLINE, CAUCUS_MAX_WAITING_PER_ADDRESS, CAUCUS_MEDIA_PORT, CAUCUS_MEDIA_ADDRESS, CAUCUS_MEDIA_BIND_ADDRESS, \
            CAUCUS_TLS_CERT, CAUCUS_TLS_KEY, CAUCUS_TLS_CHECK_SECONDS, CAUCUS_HTTP_REDIRECT_PORT, CAUCUS_PUBLIC_URL, \
            CAUCUS_TURN_URLS, CAUCUS_TURN_SECRET_FILE, CAUCUS_TURN_CREDENTIAL_HOURS. Sessions \
            are stored in SQLite in the data folder unless --store names a PostgreSQL database. Media (WebRTC) \
            goes to one UDP port on the media address, 127.0.0.1 and a free port by default. With --tls-cert and \
            --tls-key the port speaks HTTPS and WSS (docs/deploy.md); a SIGHUP or a change of the files reloads them. \
            With --turn-url and --turn-secret-file every joined user is given those TURN servers with credentials \
            of its own (docs/turn.md).
            """)

    @Option(help: "Address to listen on.") var host: String?
    @Option(help: "Port to listen on (0 picks a free one).") var port: Int?
    @Option(help: "Folder for the database, the server key and the development app.") var data: String?
    @Option(help: "JSON file of production apps: {\"apps\": [{\"key\": …, \"secret\": …, \"limits\": {…}}]}.") var config: String?
    @Option(help: "Where sessions are stored: sqlite (the default: a file in the data folder) or a PostgreSQL URL, postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require].")
    var store: String?
    @Option(help: "Which SQLite commits wait for the disk: messages (chat, broadcast; the default) or every-commit. PostgreSQL syncs every commit.")
    var sync: SyncPolicy?
    @Option(help: "Events between two snapshots of a session's state, which a restart rebuilds from (default 1000; 0: none).")
    var snapshotEvery: Int?
    @Option(help: "Recent events a session keeps to replay to a resuming client (default 10000); a restart rebuilds from a snapshot at least this far back.")
    var replayWindow: Int?
    @Option(help: "Milliseconds that news of other users joining or dropping may wait to be sent in one write (0: at once; default 5).")
    var rosterWindow: Int?
    @Option(help: "UDP port for media (ICE, DTLS, SRTP); 0, the default, picks a free one.") var mediaPort: Int?
    @Option(help: "IP address announced to WebRTC peers as the media candidate, and bound (default 127.0.0.1).")
    var mediaAddress: String?
    @Option(help: "Local IP address the media socket binds when it differs from the announced one (behind NAT).")
    var mediaBindAddress: String?
    @Option(help: "Datagram channels serving the media port, one per event loop, up to one per core (default: 1; more only for many sessions needing more than a core for media: a session's datagrams reaching another loop's socket are handed over).")
    var mediaLoops: Int?
    @Option(help: "Forwarded media to one peer sent in runs the kernel cuts up (UDP GSO): auto (the default: on Linux 6.11 and later), on, off (needed where media is routed through kernel IPsec).")
    var mediaGso: MediaSegmentationOffload?
    @Option(help: "What one slice of a large media routing recomputation may cost: the streams its users may receive, plus 256 a user; about a millisecond of the media loop at the default 16384. Forwarding goes on between slices. A very large number recomputes each change in one piece.")
    var mediaRoutingSlice: Int?
    @Option(name: .customLong("media-tcp-port"), help: "TCP port of the ICE-TCP candidate (RFC 6544) for peers without UDP: 0, the default, the media port's number (a free port if that one is taken); off: no TCP candidate.")
    var mediaTCPPort: String?
    @Option(help: "Bytes of recordings each app may keep in the data folder (a number, or with K, M, G or T: 20G); past it, recording stops with quotaExceeded and the session goes on. Default: no limit but the disk's.")
    var recordingQuota: String?
    @Option(help: "Several nodes on one PostgreSQL store: this node's address as clients and the other nodes reach it (http://host:port). It names the node in the sessions' leases; without it the server runs alone.")
    var nodeURL: String?
    @Option(help: "Several nodes: seconds a session's lease lasts unrenewed, after which another node takes the session over (default 10).")
    var leaseSeconds: Int?
    @Option(help: "Seconds a connection may take to send each request whole (head and body), then, once upgraded, to join; then it is closed (a WebSocket with 4008; default 10).")
    var joinDeadline: Int?
    @Option(help: "Connections not joined yet that one address may hold at once, from their accept (an upgrade beyond is closed with 4009, and beyond as many again, at least 64, a new connection at once; default 1000: a class behind one NAT).")
    var maxWaitingPerAddress: Int?
    @Option(help: "Connections not joined yet that the server holds at once, from every address; one more is closed as soon as it is accepted (default: half of the open-file limit beyond 256 reserved).")
    var maxWaiting: Int?
    @Option(help: "A plain HTTP port serving only /healthz, /readyz and /metrics, which answers while the main port holds --max-waiting (0 picks a free one).")
    var healthPort: Int?
    @Option(help: "PEM certificate (the server's first, then its chain, like certbot's fullchain.pem): the port speaks HTTPS and WSS. Reloaded on SIGHUP and when the file changes.")
    var tlsCert: String?
    @Option(help: "PEM private key of --tls-cert (unencrypted).") var tlsKey: String?
    @Option(help: "Seconds between two checks of the certificate files for a change (default 5).") var tlsCheckSeconds: Int?
    @Option(help: "With TLS: a plain HTTP port answering every request 308 to the same path over HTTPS (80 in production; 0 picks a free one).")
    var httpRedirectPort: Int?
    @Option(help: "The address students and other machines open (https://host[:port]): invite links follow it, and so do the node URL (with --store postgres) and the media address unless given.")
    var publicURL: String?
    @Option(name: .customLong("turn-url"), help: "A TURN server clients may relay media through: turn:host[:port][?transport=udp|tcp] or turns:host[:port][?transport=tcp] (TLS). Repeat it for several; every joined user is given them all, with credentials of its own. Needs --turn-secret-file.")
    var turnURLs: [String] = []
    @Option(help: "File holding the secret shared with the TURN servers (coturn's static-auth-secret, one line), from which each user's credentials are minted. It never leaves the server.")
    var turnSecretFile: String?
    @Option(help: "Hours a TURN credential may start new relays (1 to 168, default 12); a relay started before then lasts as long as the call.")
    var turnCredentialHours: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: Logger.Level = .info

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        configuration.host = host ?? environment["CAUCUS_HOST"] ?? configuration.host
        configuration.port = try port ?? environment["CAUCUS_PORT"].map(Self.port) ?? configuration.port
        configuration.dataDirectory = data ?? environment["CAUCUS_DATA"] ?? configuration.dataDirectory
        configuration.syncPolicy = try sync ?? environment["CAUCUS_SYNC"].map(Self.syncPolicy) ?? configuration.syncPolicy
        configuration.storeURL = try (store ?? environment["CAUCUS_STORE"]).flatMap(Self.storeURL)
        if let window = try replayWindow ?? environment["CAUCUS_REPLAY_WINDOW"].map(Self.count) {
            guard window >= 0 else { throw ValidationError("The replay window is 0 or more events.") }
            configuration.replayWindow = window
        }
        if let every = try snapshotEvery ?? environment["CAUCUS_SNAPSHOT_EVERY"].map(Self.count) {
            guard every >= 0 else { throw ValidationError("The snapshot interval is 0 (none) or more events.") }
            configuration.snapshotInterval = every
        }
        if let window = try rosterWindow ?? environment["CAUCUS_ROSTER_WINDOW"].map(Self.milliseconds) {
            guard (0...1000).contains(window) else { throw ValidationError("The roster window is 0 to 1000 ms.") }
            configuration.rosterWindow = .milliseconds(window)
        }
        try applyAdmissionOptions(to: &configuration, environment: environment)
        configuration.mediaPort = try mediaPort ?? environment["CAUCUS_MEDIA_PORT"].map(Self.port) ?? configuration.mediaPort
        guard (0...65535).contains(configuration.mediaPort) else { throw ValidationError("The media port is 0 to 65535.") }
        configuration.mediaAddress = mediaAddress ?? environment["CAUCUS_MEDIA_ADDRESS"] ?? configuration.mediaAddress
        configuration.mediaBindAddress = mediaBindAddress ?? environment["CAUCUS_MEDIA_BIND_ADDRESS"] ?? configuration.mediaBindAddress
        if let loops = try mediaLoops ?? environment["CAUCUS_MEDIA_LOOPS"].map(Self.mediaLoopCount) {
            guard (1...System.coreCount).contains(loops) else {
                throw ValidationError("The media loops are 1 to \(System.coreCount) (one per core at most).")
            }
            configuration.mediaLoops = loops
        }
        if let slice = try mediaRoutingSlice ?? environment["CAUCUS_MEDIA_ROUTING_SLICE"].map(Self.routingSlice) {
            guard slice >= 1 else { throw ValidationError("The media routing slice is 1 or more.") }
            configuration.mediaRoutingSlice = slice
        }
        if let gso = try mediaGso ?? environment["CAUCUS_MEDIA_GSO"].map(Self.segmentationOffload) {
            configuration.mediaSegmentationOffload = gso
        }
        if let tcp = mediaTCPPort ?? environment["CAUCUS_MEDIA_TCP_PORT"] {
            if tcp == "off" {
                configuration.mediaTCPPort = nil
            } else {
                guard let port = Int(tcp), (0...65535).contains(port) else {
                    throw ValidationError("The media TCP port is 0 to 65535, or off.")
                }
                configuration.mediaTCPPort = port
            }
        }
        if let quota = recordingQuota ?? environment["CAUCUS_RECORDING_QUOTA"] {
            configuration.recordingQuota = try Self.byteCount(quota, option: "--recording-quota")
        }
        if let path = config ?? environment["CAUCUS_CONFIG"] { configuration.apps = try AppsFile.load(path) }
        try applyNetworkOptions(to: &configuration, environment: environment)
        try applyTURNOptions(to: &configuration, environment: environment)
        if let url = nodeURL ?? environment["CAUCUS_NODE_URL"] ?? derivedNodeURL(configuration) {
            guard configuration.storeURL != nil else { throw ValidationError("--node-url runs several nodes on one PostgreSQL store: give --store postgres://….") }
            var cluster = ClusterConfiguration(nodeURL: try Self.nodeURL(url))
            if let seconds = try leaseSeconds ?? environment["CAUCUS_LEASE_SECONDS"].map(Self.count) {
                guard (1...3600).contains(seconds) else { throw ValidationError("The lease lasts 1 to 3600 seconds.") }
                cluster.leaseDuration = .seconds(seconds)
            }
            configuration.cluster = cluster
        } else if leaseSeconds != nil {
            throw ValidationError("--lease-seconds is for several nodes: give --node-url too.")
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "caucus")
        logger.logLevel = logLevel
        raiseOpenFileLimit(configuration, logger: logger)
        let server = try await SessionServer.open(configuration, logger: logger)
        let dataFolder = configuration.dataDirectory
        try await server.run(
            onRunning: { port in Self.announce(server: server, port: port, data: dataFolder) },
            onRedirectRunning: { port in Self.announceRedirect(server: server, port: port) },
            onHealthRunning: { port in Self.announceHealth(server: server, port: port) })
    }

    private static func milliseconds(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("CAUCUS_ROSTER_WINDOW must be a number of milliseconds.") }
        return value
    }

    /// Nil for the embedded SQLite store, else the PostgreSQL URL.
    private static func storeURL(_ text: String) throws -> String? {
        if text == "sqlite" { return nil }
        guard PostgresStoreLocation.isPostgresURL(text) else {
            throw ValidationError("The store is sqlite or a PostgreSQL URL (postgres://user@host:port/database).")
        }
        return text
    }

    /// `http(s)://host:port`, with nothing after the port: the node's id and the base of the
    /// URLs other nodes send clients to.
    private static func nodeURL(_ text: String) throws -> String {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme), let host = url.host, !host.isEmpty, url.port != nil,
            url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil, url.user == nil
        else { throw ValidationError("The node URL is http://host:port (or https), as clients reach this node, with no path.") }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    private static func count(_ text: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("CAUCUS_SNAPSHOT_EVERY, CAUCUS_REPLAY_WINDOW and CAUCUS_LEASE_SECONDS must be whole numbers.") }
        return value
    }

    private static func syncPolicy(_ text: String) throws -> SyncPolicy {
        guard let policy = SyncPolicy(rawValue: text) else { throw ValidationError("CAUCUS_SYNC must be messages or every-commit.") }
        return policy
    }

    private static func mediaLoopCount(_ text: String) throws -> Int {
        guard let count = Int(text) else { throw ValidationError("CAUCUS_MEDIA_LOOPS must be a number, not \"\(text)\".") }
        return count
    }

    private static func routingSlice(_ text: String) throws -> Int {
        guard let slice = Int(text) else { throw ValidationError("CAUCUS_MEDIA_ROUTING_SLICE must be a number, not \"\(text)\".") }
        return slice
    }

    private static func segmentationOffload(_ text: String) throws -> MediaSegmentationOffload {
        guard let setting = MediaSegmentationOffload(rawValue: text) else { throw ValidationError("CAUCUS_MEDIA_GSO must be auto, on or off, not \"\(text)\".") }
        return setting
    }

    private static func port(_ text: String) throws -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw ValidationError("CAUCUS_PORT and CAUCUS_MEDIA_PORT must be port numbers.") }
        return port
    }

    private static func announce(server: SessionServer, port: Int, data: String) {
        let secure = server.configuration.tls != nil
        let base = "\(secure ? "https" : "http")://\(server.configuration.host):\(port)"
        var lines = ["Caucus is listening on \(base) (WebSocket: \(secure ? "wss" : "ws")://\(server.configuration.host):\(port)/ws)"]
        if let publicURL = server.configuration.publicURL {
            lines.append("Public URL: \(publicURL.origin) (invite links: \(publicURL.origin)/console/, WebSocket: \(publicURL.webSocketURL))")
        }
        if let app = server.developmentApp {
            let dataOption = data == "./caucus-data" ? "" : " --data \(data)"
            lines += [
                "Development app \(app.key) (\(server.createdDevelopmentApp ? "created" : "from") \(data)/\(AppCredentials.developmentFileName); development only).",
                "Try it:",
                "  caucus token --session Demo --role host\(dataOption)    # mint a host token",
                "  then send {\"id\":1,\"op\":\"join\",\"session\":\"Demo\",\"userName\":\"Ada\",\"token\":\"<token>\"} to the WebSocket",
                "  curl -u '\(app.key):<secret from the file>' \(base)/v1/sessions",
            ]
        }
        if let cluster = server.configuration.cluster {
            lines.append("Node \(cluster.nodeURL) of several sharing one store (lease \(cluster.leaseDuration)).")
        }
        lines.append("Media (WebRTC, UDP): \(server.configuration.mediaAddress):\(server.mediaPort)"
            + (server.mediaTCPPort.map { ", ICE-TCP: \(server.configuration.mediaAddress):\($0)" } ?? ""))
        if let turn = server.configuration.turn {
            lines.append("TURN for clients: \(turn.urls.joined(separator: ", ")) (credentials per user, valid \(turn.credentialHours) h)")
        }
        lines.append("Console: \(base)/ (in a browser)")
        lines.append("Health: \(base)/healthz · Metrics: \(base)/metrics · API: \(base)/openapi.json")
        // Written unbuffered: a supervisor (or a test) reading a pipe learns the port at once.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension SyncPolicy: ExpressibleByArgument {}
extension MediaSegmentationOffload: ExpressibleByArgument {}
