import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's records of its users, on their own: a handover's entry counts as a change only
/// where it differs, the index of who is where follows every move and forgets an emptied
/// location, a recomputed assignment outlives the handovers that do not touch it, and a record
/// with nothing in it goes.
@Suite struct EngineUsersTests {
    /// Something to stand for a signalling connection.
    final class Connection {}

    static let audio = (1...3).map { PublishedStream(publisher: $0, kind: .audio) }

    static func entry(
        _ eligible: [PublishedStream] = audio, location: Int? = 0, channel: SignallingChannelID? = nil,
        pinned: PublishedStream? = nil
    ) -> RoutingHandover.Entry {
        RoutingHandover.Entry(eligible: eligible, location: location, channel: channel, pinned: pinned)
    }

    @Test func anEntryIsAChangeOnlyWhereItDiffers() {
        var records = EngineUsers()
        let connection = Connection()
        let channel = SignallingChannelID(connection)
        #expect(records.take(Self.entry(channel: channel), for: 7).changed, "a first entry")
        #expect(!records.take(Self.entry(channel: channel), for: 7).changed, "the same again")
        #expect(records.take(Self.entry(Array(Self.audio.prefix(2)), channel: channel), for: 7).changed, "fewer streams")
        #expect(records.take(Self.entry(Array(Self.audio.prefix(2)), channel: nil), for: 7).changed, "its channel lost")
        #expect(records.take(Self.entry(Array(Self.audio.prefix(2)), location: 4), for: 7).changed, "elsewhere")
        #expect(records.take(Self.entry(Array(Self.audio.prefix(2)), location: 4, pinned: Self.audio[2]), for: 7).changed, "a pin")
        #expect(records.eligible(7) == Array(Self.audio.prefix(2)) && records.pinned(7) == Self.audio[2])
        #expect(records.location(of: 7) == 4 && records.channel(of: 7) == nil)

        // An empty list is no streams, as before it: nothing changed.
        #expect(records.take(Self.entry([], location: 4), for: 8).changed)
        #expect(!records.take(Self.entry([], location: 4), for: 8).changed)
        #expect(records.eligible(8) == nil)
        #expect(records.eligibleUsers == [7], "8 may receive nothing")
    }

    @Test func theIndexOfWhoIsWhereFollowsEveryMove() {
        var records = EngineUsers()
        #expect(records.take(Self.entry(location: 0), for: 1).move == .init(arrived: 0))
        #expect(records.take(Self.entry(location: 0), for: 2).move == .init(arrived: 0))
        #expect(records.take(Self.entry(location: 0), for: 2).move == nil, "no move")
        #expect(records.members(of: 0) == [1, 2])

        #expect(records.take(Self.entry(location: 5), for: 1).move == .init(left: 0, emptied: false, arrived: 5))
        #expect(records.members(of: 0) == [2] && records.members(of: 5) == [1])
        #expect(records.take(Self.entry(location: 5), for: 2).move == .init(left: 0, emptied: true, arrived: 5))
        #expect(records.members(of: 0) == nil, "an emptied location goes")
        #expect(records.members(of: 5) == [1, 2])

        // Leaving (no location) is a move that arrives nowhere.
        #expect(records.take(Self.entry(location: nil), for: 1).move == .init(left: 5, emptied: false, arrived: nil))
        #expect(records.location(of: 1) == nil && records.members(of: 5) == [2])
    }

    @Test func anAssignmentOutlivesHandoversAndGoesWithThePeer() {
        var records = EngineUsers()
        let slots = SlotAssignment(sources: [SlotID(kind: .audio, index: 0): Self.audio[1]])
        _ = records.take(Self.entry(), for: 1)
        records.assign(slots, to: 1)
        _ = records.take(Self.entry(location: 3), for: 1)
        #expect(records.assignment(of: 1) == slots, "a handover does not touch it")

        // The session forgets the user (it left) while its peer lives on: the slots stay.
        _ = records.take(Self.entry([], location: nil), for: 1)
        #expect(records.assignment(of: 1) == slots && records.count == 1)
        records.assign(nil, to: 1)
        #expect(records.assignment(of: 1) == nil)
    }

    @Test func aRecordWithNothingInItGoes() {
        var records = EngineUsers()
        let connection = Connection()
        _ = records.take(Self.entry(location: 2, channel: SignallingChannelID(connection), pinned: Self.audio[0]), for: 1)
        records.assign(SlotAssignment(), to: 1)
        _ = records.take(Self.entry(location: 2), for: 2)
        #expect(records.count == 2)

        // Each field alone keeps the record; with none left it goes.
        records.assign(nil, to: 1)
        _ = records.take(Self.entry([], location: nil, pinned: Self.audio[0]), for: 1)
        #expect(records.count == 2, "its pin is left")
        _ = records.take(Self.entry([], location: nil), for: 1)
        #expect(records.count == 1)
        #expect(records.eligible(1) == nil && records.location(of: 1) == nil && records.pinned(1) == nil)

        // An assignment given to a user the session never named makes a record, and its
        // removal leaves none.
        records.assign(SlotAssignment(), to: 9)
        #expect(records.count == 2)
        records.assign(nil, to: 9)
        #expect(records.count == 1 && records.members(of: 2) == [2])
    }
}
