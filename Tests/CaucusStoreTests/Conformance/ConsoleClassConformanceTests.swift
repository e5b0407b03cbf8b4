import CaucusCore
import CaucusStore
import Testing

/// The console's class book in the store (`ConsoleClassStore`), on every store: what a change
/// writes is what any store on the database reads, and changes of one class name (or of one
/// class) made at once through two stores, as two nodes would, run one after the other.
@Suite("Conformance: console classes")
struct ConsoleClassConformanceTests {
    static func record(_ id: String, session: String = "Period 4", state: ConsoleClassRecord.State = .opened, createdAt: Int64 = 1_000) -> ConsoleClassRecord {
        ConsoleClassRecord(app: "demo", session: session, id: id, state: state, hostGeneration: 0, createdAt: createdAt)
    }

    static func id(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: 32 - digits.count) + digits
    }

    @Test(arguments: StoreKind.allCases)
    func aChangeIsReadBackByAnotherStoreWithTheClassesOfItsNameWhateverTheCase(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let writer = try await database.open()
        let reader = try await database.open()
        try await writer.store.changeConsoleClasses(id: Self.id(1), app: "demo", nameKey: "period 4") { records in
            #expect(records.isEmpty)
            var made = Self.record(Self.id(1))
            made.startedAt = 5
            records[made.id] = made
        }
        try await writer.store.changeConsoleClasses(id: Self.id(2), app: "demo", nameKey: "algebra") { records in
            records[Self.id(2)] = Self.record(Self.id(2), session: "Algebra")
        }
        try await writer.store.changeConsoleClasses(id: Self.id(3), app: "other", nameKey: "period 4") { records in
            #expect(records.isEmpty, "another app's class of the name is not this app's")
            records[Self.id(3)] = ConsoleClassRecord(app: "other", session: "Period 4", id: Self.id(3), state: .opened, hostGeneration: 0, createdAt: 1)
        }
        var expected = Self.record(Self.id(1))
        expected.startedAt = 5
        #expect(try await reader.store.consoleClass(Self.id(1)) == expected)
        #expect(try await reader.store.consoleClass(Self.id(9)) == nil)

        // A change sees its name's classes (any case) and its own class, nothing else.
        let seen = try await reader.store.changeConsoleClasses(id: Self.id(2), app: "demo", nameKey: SessionName.key("PERIOD 4")) { records in
            records[Self.id(1)]?.state = .ended
            records[Self.id(1)]?.hostGeneration = 3
            records[Self.id(1)]?.seenRunning = true
            return Set(records.keys)
        }
        #expect(seen == [Self.id(1), Self.id(2)])
        expected.state = .ended
        expected.hostGeneration = 3
        expected.seenRunning = true
        #expect(try await writer.store.consoleClass(Self.id(1)) == expected)

        // What a class is (its id, app, name, creation) never changes; a change that alters it writes nothing of it.
        try await writer.store.changeConsoleClasses(id: Self.id(2), app: "demo", nameKey: "algebra") { records in
            records[Self.id(2)] = ConsoleClassRecord(app: "demo", session: "Geometry", id: Self.id(2), state: .ended, hostGeneration: 7, createdAt: 1_000)
            records[Self.id(4)] = Self.record(Self.id(5))
        }
        #expect(try await reader.store.consoleClass(Self.id(2)) == Self.record(Self.id(2), session: "Algebra"))
        #expect(try await reader.store.consoleClass(Self.id(4)) == nil)
        #expect(try await reader.store.consoleClass(Self.id(5)) == nil)

        // Classes made before the cutoff are forgotten, the others kept.
        try await reader.store.forgetConsoleClasses(createdBefore: 1_000)
        #expect(try await writer.store.consoleClass(Self.id(3)) == nil)
        #expect(try await writer.store.consoleClass(Self.id(1)) == expected)
        await writer.close()
        await reader.close()
    }

    /// Many "open a class of this name unless one is open" at once through two stores: exactly
    /// one opens. Without the change's lock, two would read no class and both write theirs.
    @Test(arguments: StoreKind.allCases)
    func racingOpeningsOfOneNameOpenOneClass(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let first = try await database.open()
        let second = try await database.open()
        let attempts = 12
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<attempts {
                let store = (index % 2 == 0 ? first : second).store
                group.addTask {
                    try await store.changeConsoleClasses(id: Self.id(100 + index), app: "demo", nameKey: "period 4") { records in
                        guard !records.values.contains(where: { $0.state != .ended }) else { return false }
                        records[Self.id(100 + index)] = Self.record(Self.id(100 + index), session: index % 3 == 0 ? "PERIOD 4" : "Period 4")
                        return true
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(opened.filter { $0 }.count == 1, "\(opened)")
        var stored = 0
        for index in 0..<attempts where try await first.store.consoleClass(Self.id(100 + index)) != nil { stored += 1 }
        #expect(stored == 1)
        await first.close()
        await second.close()
    }

    /// Host link rotations at once through two stores: each gets a generation of its own, and
    /// the last is the number of rotations, as if they ran one by one.
    @Test(arguments: StoreKind.allCases)
    func racingRotationsOfOneClassEachGetAGenerationOfTheirOwn(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let first = try await database.open()
        let second = try await database.open()
        let id = Self.id(7)
        try await first.store.changeConsoleClasses(id: id, app: "demo", nameKey: "period 4") { $0[id] = Self.record(id) }
        let rotations = 16
        let generations = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<rotations {
                let store = (index % 2 == 0 ? first : second).store
                group.addTask {
                    try await store.changeConsoleClasses(id: id, app: "demo", nameKey: "period 4") { records in
                        records[id]?.hostGeneration += 1
                        return records[id]?.hostGeneration
                    }
                }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(Set(generations.compactMap { $0 }) == Set(1...rotations))
        #expect(try await second.store.consoleClass(id)?.hostGeneration == rotations)
        await first.close()
        await second.close()
    }
}
