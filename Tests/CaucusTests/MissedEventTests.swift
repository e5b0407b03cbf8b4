import Caucus
import CaucusCore
import Foundation
import Testing

/// An event lost on the way is noticed and the state taken afresh; no event that merely went
/// to others is taken for a lost one (docs/protocol.md, "Checking for missed events").
@Suite struct MissedEventTests {
    static var checkingOften: CaucusSession.Configuration {
        var configuration = Client.configuration
        configuration.missedEventCheckInterval = .milliseconds(50)
        return configuration
    }

    @Test func aLostEventIsNoticedAndTheSnapshotTakenAfresh() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Lossy", role: .host)
        let ann = try await server.client("Ann", session: "Lossy", url: proxy.url, configuration: Self.checkingOften)
        proxy.dropNextServerFrame(containing: #""userRenamed""#)
        try await host.session.userHelper.rename(try host.id, to: "Ms Reyes")
        // Later events arrive as usual, so Ann's last seq says nothing of the one she lost.
        try await host.session.chat.send("after the rename")
        try await ann.log.next("the chat after it") { if case .chatMessage(let message, _) = $0, message.text == "after the rename" { true } else { nil } }
        let fresh = try await ann.log.next("a fresh snapshot") { if case .resynchronized(let snapshot) = $0 { snapshot } else { nil } }
        let teacher = try host.id
        #expect(fresh.user(teacher)?.name == "Ms Reyes")
        #expect(try ann.snapshot.user(teacher)?.name == "Ms Reyes")
        #expect(!ann.log.all.contains { if case .userRenamed = $0 { true } else { false } }, "the rename event itself was lost")
        #expect(ann.session.connectionState == .connected, "no reconnect was needed")
        await proxy.stop()
        await server.stop()
    }

    /// Events for others only (a room's chat, a direct message to someone else, a host-only
    /// plan) leave gaps in each client's `seq`; checking often through all of them, nobody
    /// takes a fresh snapshot.
    @Test func eventsForOthersAreNotTakenForLostOnes() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", session: "Busy", role: .host, configuration: Self.checkingOften)
        var students: [Client] = []
        for name in ["Ann", "Bo", "Cy", "Di"] {
            students.append(try await server.client(name, session: "Busy", configuration: Self.checkingOften))
        }
        let helper = try #require(host.session.subsessionHelper)
        try await helper.addToPreList("Red", "Blue")
        try await helper.preAssign([try students[0].id, try students[1].id], to: "Red")
        try await helper.preAssign([try students[2].id, try students[3].id], to: "Blue")
        try await helper.commit()
        try await #require(host.session.subsessionManager).start(autoMove: true)
        for round in 0..<15 {
            let student = students[round % students.count]
            try await student.session.chat.send("room message \(round)")
            try await host.session.chat.send("to \(round)", to: try students[(round + 1) % students.count].id)
            let late = try await server.client("Late\(round)", session: "Busy")
            try await late.session.leave()
            try await Task.sleep(for: .milliseconds(20))
        }
        let last = try host.snapshot.seq
        for client in [host] + students {
            // The last event (a departure) goes to everyone: each client's seq reaches it.
            try await eventually("every client has caught up") { try client.snapshot.seq >= last }
        }
        // A few checks after the last event, so each has counted everything.
        try await Task.sleep(for: .milliseconds(300))
        for client in [host] + students {
            let resynchronized = client.log.all.filter { if case .resynchronized = $0 { true } else { false } }
            let name = try client.snapshot.myself.name
            #expect(resynchronized.count == 0, "\(name) took \(resynchronized.count) fresh snapshot(s) with nothing lost")
        }
        await server.stop()
    }
}
