import Caucus
import CaucusCore
import CaucusPostgresTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 42, item 3, end to end: the PostgreSQL server two nodes share is down for 45 s (every
/// process of it killed, started again 45 s later). The nodes live on; they close their clients
/// and answer every resume with 1010 (they cannot decide without the store) until it is back.
/// Every SDK client keeps trying as long as a node answers so (`ReconnectSchedule`'s
/// `serverCannotDecideYet`) and comes back to its own seat, where with the fixed 35 s budget
/// every one gave up though every seat survived.
@Suite(.serialized) struct StoreOutageSeatTests {
    static let outage = Duration.seconds(45)

    @Test func everySeatComesBackAfterAFortyFiveSecondOutageOfTheSharedDatabase() async throws {
        let postgres = try await CrashablePostgres(walWriterDelay: "200ms")
        let database = try await postgres.freshDatabase("outage_\(getpid())")
        let folder = temporaryFolder(prefix: "caucus-sdk-outage-")
        var nodes: [ServerProcess] = []
        for _ in 0..<2 {
            nodes.append(
                try await ServerProcess.onAFreePort(dataDirectory: folder, store: database) {
                    ["--node-url", "http://127.0.0.1:\($0)", "--lease-seconds", "4"]
                })
        }
        defer { for node in nodes { node.kill(SIGKILL) } }
        let urls = nodes.map { URL(string: $0.webSocketURL)! }
        // The SDK's own schedule and grace; only the delays between attempts are the tests'.
        var configuration = CaucusSession.Configuration(
            connectTimeout: .seconds(2), reconnectDelay: .milliseconds(200) ... .seconds(2))
        configuration.nodeURLs = urls

        var clients: [Client] = []
        var seats: [UserID] = []
        for (index, name) in ["Teacher", "Ann", "Ben", "Cy"].enumerated() {
            let client = Client(configuration: configuration)
            let token = try nodes[0].token(session: "Outage", role: index == 0 ? .host : .participant)
            try await within("\(name) joins") {
                try await client.session.join(url: urls[index % urls.count], sessionName: "Outage", userName: name, token: token)
            }
            try await client.log.next("\(name) connected") { $0.isConnectionState(.connected) ? true : nil }
            clients.append(client)
            seats.append(try client.snapshot.myself.id)
        }

        try await postgres.crash()
        for (index, client) in clients.enumerated() {
            try await client.log.next(seconds: 60, "client \(index) reconnecting during the outage") { $0.isConnectionState(.reconnecting) ? true : nil }
        }
        try await Task.sleep(for: Self.outage)
        try await postgres.start()

        for (index, client) in clients.enumerated() {
            try await client.log.next(seconds: 120, "client \(index) connected again") { $0.isConnectionState(.connected) ? true : nil }
            #expect(try client.snapshot.myself.id == seats[index], "client \(index): the same seat")
            let all = client.log.all
            #expect(all.filter { if case .sessionJoined = $0 { true } else { false } }.count == 1, "client \(index): resumed, never joined again")
            #expect(!all.contains { if case .sessionLeft = $0 { true } else { false } }, "client \(index) never left")
        }
        let host = clients[0]
        try await within(seconds: 60, "the host chats") { try await host.session.chat.send("after the outage") }
        for (index, client) in clients.enumerated().dropFirst() {
            try await client.log.next(seconds: 30, "client \(index) hears the host") {
                SeedWalkthroughTests.chat($0) == "after the outage" ? true : nil
            }
        }
    }
}
