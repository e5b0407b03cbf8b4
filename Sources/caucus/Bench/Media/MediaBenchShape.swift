/// The session `caucus bench media` plays, checked before anything starts: how many users,
/// which room each is planned into, who publishes what, and how many receive slots each
/// offers. Pure: the bench's options in, a shape or a ``Refusal`` out.
///
/// Users are spread over the rooms in turn (user `i` into room `i % rooms`), so room sizes
/// differ by at most one and consecutive joiners (the main session's loudest, by join order)
/// land in different rooms. In each room the first members publish.
struct MediaBenchShape: Sendable, Hashable {
    /// Why a shape cannot run; `description` says what to change.
    struct Refusal: Error, Hashable, CustomStringConvertible {
        let description: String
    }

    struct Kinds: OptionSet, Sendable, Hashable {
        let rawValue: Int
        static let audio = Kinds(rawValue: 1)
        static let video = Kinds(rawValue: 2)
    }

    /// The users besides the host.
    let users: Int
    let rooms: Int
    /// By user, the index of the room it is planned into.
    let placement: [Int]
    /// By user, what it publishes (empty for a listener).
    let publishes: [Kinds]
    let audioSlots: Int
    let videoSlots: Int

    /// The most rooms the bench's app allows (`ServerUnderTest.benchApp`).
    static let maxRooms = 1_000
    /// The most users besides the host the bench's app allows in one session.
    static let maxUsers = 19_999

    /// - Parameters:
    ///   - rooms: how many rooms; nil to derive it from `roomSize`.
    ///   - roomSize: the most users a room holds; nil for `users / rooms` rounded up.
    ///   - publishersPerRoom: how many of each room's users publish; nil for all of them.
    ///   - kinds: what each publisher publishes.
    init(
        users: Int, rooms: Int?, roomSize: Int?, publishersPerRoom: Int?, kinds: Kinds, audioSlots: Int, videoSlots: Int
    ) throws(Refusal) {
        guard (2...Self.maxUsers).contains(users) else { throw Refusal(description: "--users must be 2…\(Self.maxUsers) (got \(users))") }
        if let rooms, rooms < 1 { throw Refusal(description: "--rooms must be at least 1 (got \(rooms))") }
        if let roomSize, roomSize < 2 {
            throw Refusal(description: "--room-size must be at least 2: a user alone in a room has nobody to hear (got \(roomSize))")
        }
        let count: Int
        switch (rooms, roomSize) {
        case (nil, nil):
            throw Refusal(description: "give --rooms, --room-size or both")
        case (let rooms?, nil):
            count = rooms
        case (nil, let size?):
            count = (users + size - 1) / size
        case (let rooms?, let size?):
            guard rooms * size >= users else {
                throw Refusal(description: "\(users) users do not fit in \(rooms) rooms of \(size) (at most \(rooms * size))")
            }
            count = rooms
        }
        guard count <= Self.maxRooms else { throw Refusal(description: "at most \(Self.maxRooms) rooms (this shape needs \(count))") }
        guard users >= 2 * count else {
            throw Refusal(
                description: "\(users) users in \(count) rooms leaves a room with fewer than 2 users, who would have nobody to hear: "
                    + (users / 2 == 1 ? "give 1 room" : "give at most \(users / 2) rooms"))
        }
        if let publishersPerRoom, publishersPerRoom < 2 {
            throw Refusal(
                description: "--publishers-per-room must be at least 2: a room's only publisher would have nobody to hear (got \(publishersPerRoom))")
        }
        guard !kinds.isEmpty else { throw Refusal(description: "publish audio, video or both (--audio, --video)") }
        if kinds.contains(.audio), audioSlots < 1 { throw Refusal(description: "--audio-slots must be at least 1 with audio") }
        if kinds.contains(.video), videoSlots < 1 { throw Refusal(description: "--video-slots must be at least 1 with video") }
        guard audioSlots >= 0, videoSlots >= 0 else { throw Refusal(description: "a slot count is never negative") }

        self.users = users
        self.rooms = count
        placement = (0..<users).map { $0 % count }
        // A room's members in join order are its users `room`, `room + count`, …: the first
        // `publishersPerRoom` of them publish.
        let perRoom = publishersPerRoom ?? users
        publishes = (0..<users).map { $0 / count < perRoom ? kinds : [] }
        self.audioSlots = kinds.contains(.audio) ? audioSlots : 0
        self.videoSlots = kinds.contains(.video) ? videoSlots : 0
    }

    /// The users planned into `room`, in join order.
    func members(of room: Int) -> [Int] { Array(stride(from: room, to: users, by: rooms)) }

    /// The publishers of `kind` in `user`'s room, the user left out: whom it should hear (or see) after the start.
    func roommates(of user: Int, publishing kind: Kinds) -> Set<Int> {
        Set(members(of: placement[user]).filter { $0 != user && publishes[$0].contains(kind) })
    }

    /// How many video slots of `user` its room can fill.
    func fillableVideoSlots(of user: Int) -> Int { min(videoSlots, roommates(of: user, publishing: .video).count) }

    /// The smallest and largest room.
    var roomSizes: ClosedRange<Int> { (users / rooms)...((users + rooms - 1) / rooms) }

    /// How many users publish.
    var publisherCount: Int { publishes.filter { !$0.isEmpty }.count }
}

extension MediaBenchShape {
    /// Whether anyone but `user` publishes `kind`: whether it receives any in the main session.
    func hasPublishers(of kind: Kinds, besides user: Int) -> Bool {
        let count = publishes.filter { $0.contains(kind) }.count
        return count > (publishes[user].contains(kind) ? 1 : 0)
    }

    /// The SSRC `user` publishes `kind` with.
    static func ssrc(of user: Int, _ kind: Kinds) -> UInt32 { (kind == .video ? 0x2000_0000 : 0x1000_0000) + UInt32(user) }
}
