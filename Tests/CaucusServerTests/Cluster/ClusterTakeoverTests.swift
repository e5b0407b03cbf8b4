import CaucusCore
import CaucusStore
import CaucusStorePostgres
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three real `caucus serve` nodes on one real PostgreSQL: a session lives on the node holding
/// its lease; when that node dies, the others take it over from the store and its users
/// resume there, through whichever node they reach.
@Suite(.serialized) struct ClusterTakeoverTests {
    static let users = 200

    @Test func usersJoinedThroughThreeNodesResumeThroughTheOthersWhenTheOwnerIsKilledWithNothingLostOrDuplicated() async throws {
        // The default lease: a killed node is taken over at once (its liveness lock), so the test
        // waits for no lease; and 200 users resuming at once keep the new owner's store busy, which
        // on a loaded two-core machine can delay a renewal past a 2 s lease's give-up point (the
        // node would then rightly give the session up, and another take it over a second time).
        let cluster = try await ClusterNodes(count: 3, leaseSeconds: 10)
        let entries = cluster.urls
        let join = { (name: String, role: RoleClaim, entry: Int) async throws -> ClusterClient.Connected in
            let token = try cluster.token(session: "Class", role: role)
            let connected = try await ClusterClient.send(
                "join", ["session": "Class", "userName": name, "token": token], entries: entries, first: entry)
            await connected.client.joined(with: connected.result)
            return connected
        }
        // The host opens the session on the first node, which holds its lease from then on.
        let host = try await join("Teacher", .host, 0)
        #expect(host.url == entries[0])
        var users: [ClusterClient.Connected] = []
        for index in 0..<Self.users { users.append(try await join("User \(index)", .participant, index)) }
        // Every join reached the owner, whichever node it went to first.
        #expect(Set(users.map(\.url)) == [entries[0]])
        let ids = await users.asyncMap { await $0.client.user ?? 0 }
        let red = ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let blue = ids.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        try await host.client.request("addToPreList", ["names": ["Red", "Blue"]])
        try await host.client.request("preAssign", ["users": red, "name": "Red"])
        try await host.client.request("preAssign", ["users": blue, "name": "Blue"])
        try await host.client.request("commit")
        try await host.client.request("start", ["durationSeconds": 900])
        let snapshot = try #require(try await host.client.request("getSnapshot")["snapshot"] as? JSON)
        let rooms = ((snapshot["breakout"] as? JSON)?["rooms"] as? [JSON]) ?? []
        let redRoom = try #require(rooms.first { $0["name"] as? String == "Red" }?["id"] as? Int)
        let blueRoom = try #require(rooms.first { $0["name"] as? String == "Blue" }?["id"] as? Int)
        // Chat flows in both rooms; every message is acknowledged, so it is durable.
        var acknowledged: [Int: Set<String>] = [redRoom: [], blueRoom: []]
        for (index, user) in users.prefix(20).enumerated() {
            let text = "before the kill \(index)"
            try await user.client.request("chat", ["text": text])
            acknowledged[index % 2 == 0 ? redRoom : blueRoom, default: []].insert(text)
        }
        // What each user has seen so far, and up to where.
        var seen: [[String]] = []
        var lastSeqs: [Int] = []
        var secrets: [String] = []
        for user in users {
            seen.append(await chats(in: user.client.keptEvents()))
            lastSeqs.append(await user.client.lastSeq)
            secrets.append(try #require(await user.client.secret))
        }

        cluster.nodes[0].kill(SIGKILL)
        for user in users { _ = try await user.client.closed() }

        // Every user resumes at once, through the two other nodes alternately: the first to
        // arrive after the lease expired (or the survivors' sweep) makes one of them take over.
        let survivors = Array(entries.dropFirst())
        let resumed = try await withThrowingTaskGroup(of: (Int, ClusterClient.Connected).self) { group in
            for (index, secret) in secrets.enumerated() {
                let seen = lastSeqs[index]
                group.addTask {
                    let back = try await ClusterClient.send("resume", ["secret": secret, "lastSeq": seen], entries: survivors, first: index, patience: 40)
                    await back.client.resumed(with: back.result, secret: secret, lastSeq: seen)
                    return (index, back)
                }
            }
            var byIndex: [Int: ClusterClient.Connected] = [:]
            for try await (index, back) in group { byIndex[index] = back }
            return (0..<secrets.count).compactMap { byIndex[$0] }
        }
        #expect(resumed.count == Self.users)
        for (index, back) in resumed.enumerated() { #expect(back.result["user"] as? Int == ids[index]) }
        // One node took the session over, once; everyone is on it.
        let owners = Set(resumed.map(\.url))
        #expect(owners.count == 1 && !owners.contains(entries[0]), "one surviving node serves the session: \(owners)")
        var takeovers = 0
        for node in cluster.nodes.dropFirst() {
            let metrics = try await Curl.run(["http://127.0.0.1:\(node.port)/metrics"]).body
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("caucus_takeovers_total ") }
            takeovers += line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        }
        #expect(takeovers == 1, "the session was rebuilt once, not once per resume arriving together")
        for (index, back) in resumed.enumerated() {
            // The missed events come right after the resume reply; a ping is answered after them.
            try await back.client.request("ping")
            let all = seen[index] + (await chats(in: back.client.keptEvents()))
            let room = index % 2 == 0 ? redRoom : blueRoom
            #expect(Set(all) == acknowledged[room], "user \(ids[index]) saw every message of its room and nothing else")
            #expect(all.count == Set(all).count, "user \(ids[index]) saw no message twice")
        }
        // Each is in its room, as before the kill.
        let after = try #require(try await resumed[0].client.request("getSnapshot")["snapshot"] as? JSON)
        let locations = Dictionary(uniqueKeysWithValues: ((after["users"] as? [JSON]) ?? []).compactMap { user in
            (user["id"] as? Int).map { ($0, user["location"] as? Int) }
        })
        for (index, id) in ids.enumerated() {
            #expect(locations[id] == (index % 2 == 0 ? redRoom : blueRoom), "user \(id) is back in its room")
        }
        #expect(((after["breakout"] as? JSON)?["phase"] as? JSON)?["status"] as? String == "started")
        // The session lives on at its new node: chat reaches the room.
        try await resumed[0].client.request("chat", ["text": "after the takeover"])
        let listener = resumed[2].client
        let live = try await within("chat after the takeover") {
            try await listener.event("chatMessage") { Self.text(of: $0) == "after the takeover" }
        }
        #expect(live["seq"] as? Int != nil)
        for node in cluster.nodes.dropFirst() { node.kill(SIGKILL) }
    }

    private func chats(in events: [JSON]) -> [String] {
        events.filter { TestClient.type(of: $0) == "chatMessage" }.compactMap(Self.text(of:))
    }

    static func text(of event: JSON) -> String? {
        ((event["event"] as? JSON)?["message"] as? JSON)?["text"] as? String
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
