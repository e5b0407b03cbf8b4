import NIOCore
import Testing

@testable import caucus

/// The shapes `caucus bench media` accepts, how it spreads users over rooms and publishers,
/// and what it counts as a user's arrival in its new room.
@Suite struct MediaBenchShapeTests {
    private func shape(
        users: Int, rooms: Int? = nil, roomSize: Int? = nil, publishers: Int? = nil, kinds: MediaBenchShape.Kinds = [.audio, .video],
        audioSlots: Int = 3, videoSlots: Int = 4
    ) throws(MediaBenchShape.Refusal) -> MediaBenchShape {
        try MediaBenchShape(
            users: users, rooms: rooms, roomSize: roomSize, publishersPerRoom: publishers, kinds: kinds, audioSlots: audioSlots, videoSlots: videoSlots)
    }

    /// 30 users in 6 rooms of 5: the layout the old bench refused (its move left a room empty).
    @Test func everyRoomOfSixRoomsOfFiveGetsItsFive() throws {
        let shape = try shape(users: 30, rooms: 6)
        for room in 0..<6 { #expect(shape.members(of: room).count == 5) }
        #expect(shape.placement.count == 30)
        #expect(Set(shape.placement) == Set(0..<6))
    }

    @Test func theClassroomShapeSpreadsNineHundredNinetyNineOverFifty() throws {
        let shape = try shape(users: 999, rooms: 50)
        let sizes = (0..<50).map { shape.members(of: $0).count }
        #expect(sizes.min() == 19 && sizes.max() == 20)
        #expect(sizes.reduce(0, +) == 999)
        #expect(shape.roomSizes == 19...20)
    }

    @Test(arguments: [3, 5, 20, 50, 7])
    func aRoomSizeAloneGivesRoomsNoLargerThanIt(_ size: Int) throws {
        let shape = try shape(users: 999, roomSize: size)
        #expect(shape.rooms == (999 + size - 1) / size)
        let sizes = (0..<shape.rooms).map { shape.members(of: $0).count }
        #expect(sizes.allSatisfy { $0 >= 2 && $0 <= size })
        #expect(sizes.reduce(0, +) == 999)
    }

    @Test func publishersAreTheFirstOfEachRoom() throws {
        let shape = try shape(users: 12, rooms: 4, publishers: 2, kinds: .audio)
        for room in 0..<4 {
            let members = shape.members(of: room)
            #expect(members.map { !shape.publishes[$0].isEmpty } == [true, true, false])
        }
        #expect(shape.publisherCount == 8)
        #expect(shape.videoSlots == 0)
        // A listener hears both publishers of its room; a publisher the other one.
        #expect(shape.roommates(of: 8, publishing: .audio) == [0, 4])
        #expect(shape.roommates(of: 0, publishing: .audio) == [4])
        #expect(shape.roommates(of: 0, publishing: .video).isEmpty)
    }

    @Test func videoSlotsFillOnlyAsFarAsTheRoomHasPublishers() throws {
        let shape = try shape(users: 20, rooms: 4, publishers: 3, videoSlots: 4)
        #expect(shape.fillableVideoSlots(of: 0) == 2)
        #expect(shape.fillableVideoSlots(of: 16) == 3)
    }

    @Test(arguments: [
        (1, 1 as Int?, nil as Int?, nil as Int?, "--users"),
        (10, 0, nil, nil, "--rooms"),
        (10, 6, nil, nil, "fewer than 2 users"),
        (10, nil, 1, nil, "--room-size"),
        (10, 2, 4, nil, "do not fit"),
        (10, nil, nil, nil, "--rooms, --room-size"),
        (10, 2, nil, 1, "--publishers-per-room"),
        (5_000, nil, 2, nil, "at most 1000 rooms"),
        // 999 users in rooms of 2 leave one alone.
        (999, nil, 2, nil, "fewer than 2 users"),
    ])
    func badShapesAreRefusedWithWhatToChange(_ users: Int, _ rooms: Int?, _ roomSize: Int?, _ publishers: Int?, _ says: String) {
        #expect {
            try self.shape(users: users, rooms: rooms, roomSize: roomSize, publishers: publishers)
        } throws: { error in
            (error as? MediaBenchShape.Refusal)?.description.contains(says) == true
        }
    }

    /// `--speaker-turns`: none by default, up to 100 (1.5 s each), never negative.
    @Test func speakerTurnsAreCountedWithinBounds() throws {
        #expect(try MediaBench.parse([]).speakerTurns == 0)
        #expect(try MediaBench.parse(["--speaker-turns", "6"]).speakerTurns == 6)
        for refused in ["101", "-1"] {
            #expect(throws: (any Error).self, "--speaker-turns \(refused)") { try MediaBench.parse(["--speaker-turns", refused]) }
        }
    }

    @Test func nothingPublishedOrNoSlotsIsRefused() {
        #expect(throws: MediaBenchShape.Refusal.self) { try self.shape(users: 10, rooms: 2, kinds: []) }
        #expect(throws: MediaBenchShape.Refusal.self) { try self.shape(users: 10, rooms: 2, kinds: .audio, audioSlots: 0) }
        #expect(throws: MediaBenchShape.Refusal.self) { try self.shape(users: 10, rooms: 2, kinds: .video, videoSlots: 0) }
    }

    @Test func whoPublishesIsEveryoneButTheUserInTheMainSession() throws {
        let shape = try shape(users: 4, rooms: 2, kinds: .audio)
        #expect(shape.hasPublishers(of: .audio, besides: 0))
        #expect(!shape.hasPublishers(of: .video, besides: 0))
    }
}
