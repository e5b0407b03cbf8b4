import ArgumentParser
import CaucusAuth
import NIOPosix

/// Options every server scenario shares.
struct ServerOptions: ParsableArguments {
    @Option(help: "Measure a running server (ws://host:port) instead of starting one.") var url: String?
    @Option(help: "App key for --url.") var appKey: String?
    @Option(help: "App secret for --url.") var appSecret: String?
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(help: "Event-loop threads for the simulated users.") var clientThreads = 1

    func start() throws -> (ServerUnderTest, MultiThreadedEventLoopGroup) {
        let app = appKey.flatMap { key in appSecret.map { AppCredentials(key: key, secret: $0) } }
        return (try ServerUnderTest(url: url, app: app), MultiThreadedEventLoopGroup(numberOfThreads: clientThreads))
    }
}

/// Joins `count` users to `session(index)`, at most `parallel` at a time.
func joinUsers(
    _ count: Int, server: ServerUnderTest, group: MultiThreadedEventLoopGroup, parallel: Int = 64,
    session: @escaping @Sendable (Int) -> String, configure: @escaping @Sendable (BenchUser, Int) -> Void = { _, _ in }
) async throws -> [BenchUser] {
    try await withThrowingTaskGroup(of: (Int, BenchUser).self) { tasks in
        var users = [BenchUser?](repeating: nil, count: count)
        var next = 0
        func launch() {
            let index = next
            next += 1
            tasks.addTask {
                let user = BenchUser()
                configure(user, index)
                try await user.connect(to: server, group: group)
                try await user.join(server: server, session: session(index), name: "User \(index)")
                return (index, user)
            }
        }
        while next < min(parallel, count) { launch() }
        while let (index, user) = try await tasks.next() {
            users[index] = user
            if next < count { launch() }
        }
        return users.compactMap { $0 }
    }
}

/// A host joined to `session`.
func joinHost(_ session: String, server: ServerUnderTest, group: MultiThreadedEventLoopGroup) async throws -> BenchUser {
    let host = BenchUser()
    try await host.connect(to: server, group: group)
    try await host.join(server: server, session: session, name: "Host", host: true)
    return host
}
