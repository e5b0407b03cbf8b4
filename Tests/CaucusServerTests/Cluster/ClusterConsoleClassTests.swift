import CaucusAuth
import CaucusCore
import CaucusServer
import CaucusTestSupport
import Foundation
import Testing

/// The console's class book is the cluster's, not a node's: a class opened through one node is
/// the same class on every node sharing the PostgreSQL store, a host link replaced through one
/// node is refused by every node at once, and an ended class is ended everywhere
/// (docs/operations.md, "Console classes on several nodes").
@Suite(.serialized) struct ClusterConsoleClassTests {
    typealias JSON = [String: Any]
    typealias Links = ConsoleClassLinksTests

    @Test func aClassOpenedOnOneNodeIsJoinedRotatedAndEndedThroughAnother() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 10)
        let (a, b) = (cluster.nodes[0].port, cluster.nodes[1].port)
        let session = "Period 3"
        // A host link as `caucus link --config apps.json --role host` prints it.
        let classID = ConsoleClassCodes.newClassID()
        let host = try ConsoleClassCodes.code(session: session, classID: classID, role: .host, app: ServerProcess.app, at: .wallClock())

        // The teacher opens the class through node A and joins there.
        let opened = try await Links.post(a, "/console/token", ["session": session, "invite": host])
        #expect(opened.status == 200, "\(opened.json)")
        let participant = try opened.string("participantInvite")
        let teacher = try await TestClient.connect(url: cluster.urls[0])
        try await teacher.join(session: session, userName: "Ms Rivera", token: try opened.string("token"))

        // Node B knows the class: its participant link admits a student through B, and its
        // host link is the class's host link there too.
        let boToken = try await Links.post(b, "/console/token", ["session": session, "invite": participant, "browser": "bo"])
        #expect(boToken.status == 200, "\(boToken.json)")
        #expect(boToken.json["class"] as? String == classID)
        let bo = try await ClusterClient.send(
            "join", ["session": session, "userName": "Bo", "token": try boToken.string("token")], entries: [cluster.urls[1]], first: 0)
        #expect(bo.result["user"] as? Int != nil, "\(bo.result)")
        let hostOnB = try await Links.post(b, "/console/token", ["session": session, "invite": host, "takeOver": true])
        #expect(hostOnB.status == 200, "\(hostOnB.json)")
        #expect(hostOnB.json["role"] as? String == "host")
        let personal = try await Links.post(b, "/console/person", ["session": session, "invite": host, "name": "Cy"])
        #expect(personal.status == 200, "\(personal.json)")

        // The host replaces its link through B: node A refuses the old one at once.
        let rotated = try await Links.post(b, "/console/host-link", ["session": session, "invite": host])
        #expect(rotated.status == 200, "\(rotated.json)")
        let newHost = try rotated.string("hostInvite")
        let withOldLink: [(String, JSON)] = [
            ("/console/token", ["session": session, "invite": host]),
            ("/console/token", ["session": session, "invite": host, "takeOver": true]),
            ("/console/host-link", ["session": session, "invite": host]),
            ("/console/person", ["session": session, "invite": host, "name": "Dee"]),
        ]
        try await Links.expectRefused(a, withOldLink, status: 403, code: 1024)
        try await Links.expectRefused(b, withOldLink, status: 403, code: 1024)
        let newOnA = try await Links.post(a, "/console/person", ["session": session, "invite": newHost, "name": "Dee"])
        #expect(newOnA.status == 200, "\(newOnA.json)")

        // The teacher ends the class: both nodes say so to every one of its links.
        _ = try await teacher.send("leave", ["endSession": true])
        #expect(try await bo.client.closed() == 4002)
        let ended: [(String, JSON)] = [
            ("/console/token", ["session": session, "invite": participant, "browser": "eve"]),
            ("/console/token", ["session": session, "invite": newHost]),
            ("/console/token", ["session": session, "invite": newHost, "takeOver": true]),
            ("/console/host-link", ["session": session, "invite": newHost]),
            ("/console/person", ["session": session, "invite": newHost, "name": "Fay"]),
        ]
        for port in [a, b] { try await Links.expectRefused(port, ended, status: 410, code: 1023) }
        // And a new class of the name, opened through B, is another class: the old links stay ended on A.
        let nextID = ConsoleClassCodes.newClassID()
        let next = try ConsoleClassCodes.code(session: session, classID: nextID, role: .host, app: ServerProcess.app, at: .wallClock())
        let reopened = try await Links.post(b, "/console/token", ["session": session, "invite": next])
        #expect(reopened.status == 200, "\(reopened.json)")
        try await Links.expectRefused(a, ended, status: 410, code: 1023)
    }
}
