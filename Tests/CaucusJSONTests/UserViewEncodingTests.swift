import CaucusCore
import CaucusJSON
import CaucusProtocol
import Foundation
import Testing

/// `UserView` is written by hand (the bulk of a snapshot); it must stay what its
/// `encode(to:)` writes, in every shape a user can take (every set of published media too).
@Suite struct UserViewEncodingTests {
    static let users: [UserView] = {
        var views: [UserView] = []
        for identity in [nil, "ada@example.com", "quote \" slash / tab \t"] {
            for location in [Location.main, .room(RoomID(7))] {
                for presence in [Presence.connected, .reconnecting(until: Instant(milliseconds: 1_795_320_115_742))] {
                    for role in Role.allCases {
                        let user = SessionUser(
                            id: UserID(views.count + 1), name: "Ünïcode 👩🏽‍💻 \\(views.count)", identity: identity, claim: .participant,
                            location: location, presence: presence, joinedAt: Instant(milliseconds: 1_795_320_082_118),
                            publishing: MediaKinds(rawValue: UInt8(views.count % 8)))
                        views.append(UserView(user, role: role))
                    }
                }
            }
        }
        return views
    }()

    @Test func everyShapeMatchesFoundation() throws {
        for user in Self.users { try Compare.expectSame(user, "\(user)") }
        try Compare.expectSame(Self.users, "as a list")
    }

    @Test func membersComeInDeclarationOrder() throws {
        let user = UserView(
            SessionUser(
                id: UserID(3), name: "Col", identity: "col@example.com", claim: .participant, location: .room(RoomID(2)),
                presence: .reconnecting(until: Instant(milliseconds: 9)), joinedAt: Instant(milliseconds: 5)),
            role: .manager)
        #expect(
            Compare.text(try StreamingJSONEncoder.caucus.encode(user))
                == #"{"id":3,"name":"Col","role":"manager","location":2,"presence":{"connected":false,"reconnectingUntil":9},"identity":"col@example.com","joinedAt":5}"#
        )
    }
}
