import Atomics
import CaucusAuth
import CaucusCore
import CaucusStore
import CaucusStorePostgres
import CaucusStoreSQLite
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import UnixSignals

/// A Caucus server: the WebSocket endpoint (`/ws`), the HTTP control API (`/v1`), health and
/// metrics, over one session registry and one store.
public final class SessionServer: Sendable {
    public let configuration: ServerConfiguration
    /// The development app, when the server runs without configured apps.
    public let developmentApp: AppCredentials?
    /// Whether the development app was made on this start.
    public let createdDevelopmentApp: Bool
    let apps: [String: AppCredentials]
    let verifier: TokenVerifier
    let registry: SessionRegistry
    /// Where a session is served: here, or (several nodes) on the node holding its lease.
    let router: any SessionRouter
    /// Several nodes: renews this node's leases and takes over expired ones.
    let leaseKeeper: LeaseKeeper?
    /// Several nodes: whether the shared store answers this node (`/healthz`, `/readyz`).
    let storeReachability: StoreReachability?
    let store: any SessionStore
    /// The PostgreSQL store's connection pool, which runs as a service of `run`'s group.
    let storeService: PostgresSessionStore?
    let secrets: ResumeSecrets
    let metrics: ServerMetrics
    let media: MediaTransport
    /// Requests being handled, which a stopping server waits for.
    let requests = InFlightRequests()
    /// Set once the server begins to stop: it is no longer ready for new clients (`/readyz`).
    let stopping = ManagedAtomic<Bool>(false)
    /// The connections not joined yet: their deadline, their number per address and in all.
    let admission: JoinAdmission
    /// The health listener's connections (`healthPort`): a few, each with the same deadline.
    let healthAdmission: JoinAdmission
    /// Wrong session passwords per address and session: past ten in ten minutes, refused.
    let passwordAttempts = NIOLockedValueBox(PasswordAttempts())
    let logger: Logger
    let clock: ServerClock
    /// The console's personal links on their way into a session (development app).
    let personalClaims = ConsolePersonalClaims()
    /// The console's classes: opened, ended, their host links' generations (in the store).
    let consoleClasses: ConsoleClassBook
    /// HTTPS and WSS: the certificate new connections get; nil for plain HTTP.
    let tls: ServedCertificate?
    /// The port the main listener bound (the redirect's Location names it).
    let boundPort = BoundPort()

    /// Opens the data folder and store, and rebuilds the sessions that were live.
    public static func open(
        _ configuration: ServerConfiguration, logger: Logger = Logger(label: "caucus"),
        clock: ServerClock = .wall
    ) async throws -> SessionServer {
        // First: a certificate that cannot be served ends the start before anything is opened.
        if configuration.httpRedirectPort != nil && configuration.tls == nil {
            throw ServerConfigurationError("--http-redirect-port redirects to HTTPS: give --tls-cert and --tls-key too.")
        }
        let tls = try configuration.tls.map { files in
            ServedCertificate(try ServingCertificate.load(files, now: Date()), files: files, logger: logger)
        }
        tls?.warnIfExpiring(now: Date())
        let data = DataDirectory(path: configuration.dataDirectory)
        try data.create()
        var apps = configuration.apps
        var development: (app: AppCredentials, created: Bool)?
        if apps.isEmpty {
            development = try data.developmentApp()
            apps = [development!.app]
        }
        let store: any SessionStore
        var postgres: PostgresSessionStore?
        if configuration.cluster != nil && configuration.storeURL == nil {
            throw ServerConfigurationError("Several nodes share one PostgreSQL store: --node-url needs --store postgres://…")
        }
        if let url = configuration.storeURL {
            // Several nodes: no call waits longer than a lease, by when the node has given up
            // the sessions it was for (`HeldNodeLease`). One node: as long as a node's default lease.
            let shared = PostgresSessionStore(
                location: try PostgresStoreLocation(url: url), callDeadline: configuration.cluster?.leaseDuration ?? ClusterConfiguration.defaultLeaseDuration, logger: logger)
            store = shared
            postgres = shared
        } else {
            store = try await SQLiteSessionStore.open(path: data.databasePath, syncPolicy: configuration.syncPolicy, logger: logger)
        }
        let media: MediaTransport
        do {
            media = try await MediaTransport.bind(configuration, metrics: MediaMetrics(), logger: logger)
        } catch {
            try? await store.close()
            throw error
        }
        let server = SessionServer(
            configuration: configuration, apps: apps, development: development, store: store, storeService: postgres,
            secrets: ResumeSecrets(key: try data.serverKey()), media: media, tls: tls, logger: logger, clock: clock)
        // PostgreSQL's pool works only while it runs as a service: `run` restores then.
        if postgres == nil { try await server.restoreSessions() }
        return server
    }

    /// Readies the store and rebuilds the sessions that were live. On several nodes none is
    /// rebuilt here at start: the node starts a new run of its lease, which ends its previous
    /// run's leases, and each session is taken over by the first request for it or by a
    /// lease keeper's sweep.
    func restoreSessions() async throws {
        let started = ContinuousClock.now
        if let storeService { try await storeService.prepare() }
        await storeReachability?.answered(callStartedAt: started)
        try await ConsoleClassImport.run(dataDirectory: configuration.dataDirectory, into: store, now: clock(), logger: logger)
        if let leaseKeeper {
            try await agreeWithCluster()
            return try await leaseKeeper.start()
        }
        // Old enough snapshots that a restored session replays as much as a running one keeps.
        await registry.restore(from: try await store.liveSessions(replayDepth: configuration.replayWindow), apps: apps)
    }

    /// On several nodes, refuses to start with another server key than the running nodes'
    /// (a resume signed by one would be refused by another, and its seat lost), naming both,
    /// or with a clock too far from the database's (`ClockSkewWatch`).
    private func agreeWithCluster() async throws {
        guard let cluster = configuration.cluster, let shared = store as? any ClusterStore else { return }
        let (skew, roundTrip) = try await ClockSkewWatch.measure(store: shared, clock: clock)
        if let problem = ClockSkewWatch.problem(skew, roundTrip: roundTrip, allowance: ClockSkewWatch.allowance(of: cluster)) {
            throw ServerConfigurationError(problem + " and start again.")
        }
        let mine = secrets.fingerprint
        switch try await shared.agreeOnServerKey(mine, node: cluster.node, at: clock()) {
        case .agreed:
            logger.info("Server key agreed with the cluster", metadata: ["fingerprint": "\(mine)"])
        case .replaced(let previous):
            logger.warning(
                "No other node runs: this node's server key replaces the cluster's; resume secrets signed with the previous key are refused",
                metadata: ["fingerprint": "\(mine)", "previous": "\(previous)"])
        case .differs(let recorded, let live):
            throw ServerConfigurationError(
                "This node's server key (fingerprint \(mine)) is not the cluster's (\(recorded)), which "
                    + "\(live.map(\.rawValue).joined(separator: ", ")) run with: copy server.key from their data folder into "
                    + "\(configuration.dataDirectory)/ and start again. Nodes with different keys would refuse each other's resumes, and their users' seats would be lost.")
        }
    }

    private init(
        configuration: ServerConfiguration, apps: [AppCredentials], development: (app: AppCredentials, created: Bool)?,
        store: any SessionStore, storeService: PostgresSessionStore?, secrets: ResumeSecrets, media: MediaTransport, tls: ServedCertificate?,
        logger: Logger, clock: ServerClock
    ) {
        self.tls = tls
        self.storeService = storeService
        self.consoleClasses = ConsoleClassBook(store: store)
        self.configuration = configuration
        self.apps = Dictionary(apps.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        self.developmentApp = development?.app
        self.createdDevelopmentApp = development?.created ?? false
        self.verifier = TokenVerifier(apps: apps)
        self.store = store
        self.secrets = secrets
        self.logger = logger
        self.clock = clock
        let metrics = ServerMetrics()
        self.metrics = metrics
        self.admission = JoinAdmission(
            deadline: configuration.joinDeadline, limitPerAddress: configuration.maxWaitingPerAddress,
            ceiling: configuration.maxWaiting ?? DescriptorBudget.defaultMaxWaiting(openFiles: DescriptorBudget.openFileLimit()),
            expired: metrics.joinDeadlinesPassed, refused: metrics.waitingConnectionsRefused, overCeiling: metrics.connectionsOverCeiling,
            requestExpired: metrics.requestDeadlinesPassed)
        self.healthAdmission = JoinAdmission(
            deadline: configuration.joinDeadline, limitPerAddress: Self.healthConnectionsPerAddress, ceiling: Self.healthConnections,
            requestExpired: metrics.requestDeadlinesPassed)
        self.media = media
        let replayWindow = configuration.replayWindow
        let rosterWindow = configuration.rosterWindow
        let snapshotInterval = configuration.snapshotInterval
        let turn = configuration.turn
        let registry = SessionRegistry { registry in
            SessionEnvironment(
                store: store, clock: clock, secrets: secrets, metrics: metrics, logger: logger, replayWindow: replayWindow,
                snapshotInterval: snapshotInterval, rosterWindow: rosterWindow, media: media, turn: turn, sessionClosed: { id in await registry.closed(id) })
        }
        self.registry = registry
        // Whether a reconnecting user's media goes on follows its peer's life (`mediaPeer`).
        media.life.listen { key, peer, alive in
            Task { await registry.session(key.session)?.mediaPeer(peer, of: key.user, alive: alive) }
        }
        // A location the recording writer stopped (a full disk, the quota) is stopped for
        // everyone, with the reason.
        media.recording.listen { session, failure in
            Task { await registry.session(session)?.recordingFailed(failure.locations.map(\.sessionLocation), reason: failure.reason) }
        }
        if let cluster = configuration.cluster, let shared = store as? any ClusterStore {
            let held = HeldNodeLease(margin: cluster.giveUpMargin)
            let reachability = StoreReachability(horizon: cluster.leaseDuration - cluster.giveUpMargin)
            let router = LeasedSessionRouter(
                registry: registry, store: shared, cluster: cluster, apps: self.apps, replayDepth: replayWindow, held: held,
                reachability: reachability, metrics: metrics, clock: clock, logger: logger)
            self.router = router
            self.storeReachability = reachability
            self.leaseKeeper = LeaseKeeper(
                router: router, registry: registry, store: shared, cluster: cluster, held: held, reachability: reachability, clock: clock,
                metrics: metrics, logger: logger)
        } else {
            self.router = LocalSessionRouter(registry: registry)
            self.leaseKeeper = nil
            self.storeReachability = nil
        }
    }

    /// The Hummingbird application serving everything; `onRunning` gets the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: controlRouter(),
            server: HTTPServerBuilder { responder in
                CaucusChannel(
                    responder: responder, maxFrameBytes: self.configuration.maxFrameBytes, makeWebSocketHandler: self.webSocketHandler,
                    admission: self.admission, requestDeadline: TimeAmount(self.configuration.joinDeadline),
                    tls: self.tls)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "caucus"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await onRunning(port)
                self.boundPort.set(port)
            },
            logger: logger
        )
    }

    /// `--http-redirect-port`'s listener: every request answered 308 to HTTPS.
    func redirectApplication(port: Int, onRunning: @escaping @Sendable (Int) async -> Void) -> some Service {
        let boundPort = self.boundPort
        return HTTPSRedirectService(
            httpsPort: boundPort,
            application: Application(
                responder: HTTPSRedirectResponder(publicURL: configuration.publicURL, httpsPort: { boundPort.value }),
                configuration: .init(address: .hostname(configuration.host, port: port), serverName: "caucus"),
                onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
                logger: logger))
    }

    /// Connections the health listener holds at once, and from one address.
    static let healthConnections = 64
    static let healthConnectionsPerAddress = 16

    /// `healthPort`'s listener: `/healthz`, `/readyz` and `/metrics` in plain HTTP, with a
    /// ceiling of its own, so a health check answers while the main port holds its ceiling.
    func healthApplication(port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        addHealthRoutes(to: router)
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                CaucusChannel(
                    responder: responder, maxFrameBytes: self.configuration.maxFrameBytes, makeWebSocketHandler: nil,
                    admission: self.healthAdmission, requestDeadline: TimeAmount(self.configuration.joinDeadline))
            },
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "caucus"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The handler serving one upgraded WebSocket, and its conversation.
    @Sendable private func webSocketHandler(for channel: any Channel, accepted: AdmissionTicket?) -> WebSocketConnectionHandler {
        let connection = ClientConnection(
            queueLimit: configuration.outboundQueueLimit, byteLimit: configuration.outboundQueueBytes, channel: channel,
            slowClientsDropped: metrics.slowClientsDropped)
        return WebSocketConnectionHandler(
            conversation: WebSocketSession(server: self, connection: connection, logger: logger),
            limits: .init(
                maxMessageBytes: configuration.maxFrameBytes, keepAlive: TimeAmount(configuration.keepAliveInterval),
                closeTimeout: .seconds(2), maxQueuedMessages: 16),
            requests: requests, admission: admission, accepted: accepted)
    }

    /// Runs until SIGTERM or SIGINT; then tells every client to reconnect and closes the store.
    ///
    /// A PostgreSQL store's pool is the group's first service: a group stops its services in
    /// reverse order, each once the one after it has returned, so the pool outlives the
    /// shutdown notice, which waits for every session's last write and snapshot.
    /// `onRedirectRunning` gets the redirect listener's port (`--http-redirect-port`),
    /// `onHealthRunning` the health listener's (`--health-port`).
    public func run(
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }, onRedirectRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onHealthRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let storeService { services.append(.init(service: storeService)) }
        // Stops after everything but the pool: the lock says this node lives until its
        // sessions are saved and their leases given up.
        if let cluster = configuration.cluster, let shared = store as? any ClusterStore {
            services.append(.init(service: NodeLock(store: shared, node: cluster.node, logger: logger)))
            services.append(.init(service: ClockSkewWatch(store: shared, cluster: cluster, clock: clock, logger: logger)))
        }
        services += [
            .init(service: RestoringApplication(server: self, application: application(onRunning: onRunning))),
            .init(service: ShutdownNotice(server: self)), .init(service: MediaService(transport: media)),
        ]
        if let leaseKeeper { services.append(.init(service: leaseKeeper)) }
        if let tls {
            // Trapped now, before the port opens: from then on a SIGHUP reloads and never kills.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            services.append(.init(service: CertificateReloader(served: tls, hangups: hangups, checkInterval: configuration.tlsCheckInterval)))
        }
        if let port = configuration.httpRedirectPort {
            services.append(.init(service: redirectApplication(port: port, onRunning: onRedirectRunning)))
        }
        if let port = configuration.healthPort {
            services.append(.init(service: healthApplication(port: port, onRunning: onHealthRunning)))
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        try await store.close()
    }

    /// The UDP port media goes to, as every answer announces it.
    public var mediaPort: Int { Int(media.candidate.port) }
    /// The ICE-TCP candidate's port, when enabled.
    public var mediaTCPPort: Int? { media.tcpCandidate.map { Int($0.port) } }

    /// Closes the media port (every peer gets a close_notify). `run` does it on shutdown;
    /// a caller that runs only `application` calls it when done.
    public func closeMedia() async { await media.close() }

    /// Closes every client connection with "service restart" (they reconnect and resume),
    /// waits for each session's store write under way, then for the requests still being
    /// handled: once it returns, no task of the server is left running.
    func closeAllConnections() async {
        let sessions = await registry.all()
        for session in sessions { await session.closeForRestart() }
        await requests.drained()
        await leaseKeeper?.release()
    }
}

/// The application, served once the sessions are restored when that waited for the store's
/// service (PostgreSQL); at once otherwise.
struct RestoringApplication<Application: Service>: Service {
    let server: SessionServer
    let application: Application

    func run() async throws {
        if server.storeService != nil { try await server.restoreSessions() }
        try await application.run()
    }
}

/// Waits for graceful shutdown, then tells every client to reconnect elsewhere or later.
struct ShutdownNotice: Service {
    let server: SessionServer

    func run() async throws {
        try? await gracefulShutdown()
        server.stopping.store(true, ordering: .relaxed)
        await server.closeAllConnections()
    }
}
