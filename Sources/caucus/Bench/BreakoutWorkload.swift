import CaucusCore

/// A classroom breakout played against the pure engine: everyone joins, the host plans and
/// starts with auto-assign, rooms chat, some users move and ask for help, the host stops.
/// Every command is decided and its events applied; the count is of decide+apply operations.
struct BreakoutWorkload {
    let users: Int
    let rooms: Int
    let messagesPerUser: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func play(seed: UInt64) throws -> Int {
        var state = SessionState()
        var operations = 0
        var now = Instant(seconds: 1_700_000_000)
        func run(_ command: Command, by principal: Principal) throws {
            now = Instant(milliseconds: now.milliseconds + 1)
            do {
                for event in try state.decide(command, by: principal, at: now, entropy: seed) { state.apply(event) }
            } catch {
                throw Failure(description: "\(command) by \(principal): \(error)")
            }
            operations += 1
        }

        try run(.join(JoinRequest(sessionName: "bench", userName: "Host", claim: .host)), by: .server)
        let host = Principal.user(UserID(1))
        for index in 0..<users {
            try run(.join(JoinRequest(sessionName: "bench", userName: "User \(index)")), by: .server)
        }
        try run(.addToPreList((1...rooms).map { "Room \($0)" }), by: host)
        try run(.commit, by: host)
        try run(.start(StartOptions(durationSeconds: 900, autoAssign: true)), by: host)
        let ids = state.users.keys.filter { $0 != UserID(1) }
        for round in 0..<messagesPerUser {
            for id in ids { try run(.chat("message \(round)", to: .room), by: .user(id)) }
        }
        let roomIDs = state.rooms.map(\.id)
        for (offset, id) in ids.enumerated() where offset % 10 == 0 {
            try run(.returnToMain, by: .user(id))
            try run(.joinRoom(roomIDs[(offset / 10) % roomIDs.count]), by: .user(id))
            try run(.requestHelp, by: .user(id))
        }
        while let request = state.helpRequests.first {
            try run(.answerHelp(request.id, .ignore), by: host)
        }
        try run(.broadcast("Two minutes left"), by: host)
        try run(.stop(countdownSeconds: 0), by: host)
        return operations
    }
}
