@testable import Caucus
import NIOConcurrencyHelpers
import Testing

/// Which path updates count as network changes, and the watcher that reports them: the parts
/// of the Apple-only path monitoring that are not Apple API calls, driven directly.
@Suite struct NetworkWatcherTests {
    static let wifi = NetworkPath(isUsable: true, interface: "en0")
    static let cellular = NetworkPath(isUsable: true, interface: "pdp_ip0")
    static let none = NetworkPath(isUsable: false, interface: nil)

    /// Whether each path, fed in turn, counted as a change.
    static func changes(_ paths: [NetworkPath]) -> [Bool] {
        var changes = NetworkPathChanges()
        return paths.map { changes.isChange($0) }
    }

    @Test func theFirstPathIsTheCurrentOneNotAChange() {
        #expect(Self.changes([Self.wifi]) == [false])
        #expect(Self.changes([Self.none]) == [false])
    }

    @Test func theSamePathAgainIsNotAChange() {
        #expect(Self.changes([Self.wifi, Self.wifi, Self.wifi]) == [false, false, false])
    }

    @Test func anotherInterfaceIsAChange() {
        #expect(Self.changes([Self.wifi, Self.cellular, Self.wifi]) == [false, true, true])
    }

    @Test func thePathBackIsAChangeItsLossIsNot() {
        #expect(Self.changes([Self.wifi, Self.none, Self.none, Self.wifi]) == [false, false, false, true])
        #expect(Self.changes([Self.none, Self.cellular]) == [false, true])
    }

    /// A watcher and how many times it called its handler.
    static func watcher() -> (NetworkWatcher, NIOLockedValueBox<Int>) {
        (NetworkWatcher(), NIOLockedValueBox(0))
    }

    @Test func aStartedWatcherReportsChangesAndReturnsToTheForeground() {
        let (watcher, calls) = Self.watcher()
        watcher.start { calls.withLockedValue { $0 += 1 } }
        #expect(watcher.isWatching)
        watcher.pathChanged(Self.wifi)
        watcher.pathChanged(Self.wifi)
        #expect(calls.withLockedValue { $0 } == 0)
        watcher.pathChanged(Self.cellular)
        #expect(calls.withLockedValue { $0 } == 1)
        watcher.returnedToForeground()
        #expect(calls.withLockedValue { $0 } == 2)
    }

    @Test func aWatcherNotStartedOrStoppedReportsNothing() {
        let (watcher, calls) = Self.watcher()
        watcher.pathChanged(Self.wifi)
        watcher.pathChanged(Self.cellular)
        watcher.returnedToForeground()
        #expect(!watcher.isWatching)
        watcher.start { calls.withLockedValue { $0 += 1 } }
        watcher.stop()
        #expect(!watcher.isWatching)
        watcher.pathChanged(Self.wifi)
        watcher.pathChanged(Self.cellular)
        watcher.returnedToForeground()
        #expect(calls.withLockedValue { $0 } == 0)
    }

    /// A session joined again starts from the path it finds, not the one it left with.
    @Test func startingAgainForgetsThePathSeenBefore() {
        let (watcher, calls) = Self.watcher()
        watcher.start { calls.withLockedValue { $0 += 1 } }
        watcher.pathChanged(Self.wifi)
        watcher.stop()
        watcher.start { calls.withLockedValue { $0 += 1 } }
        watcher.pathChanged(Self.cellular)
        #expect(calls.withLockedValue { $0 } == 0)
        watcher.pathChanged(Self.wifi)
        #expect(calls.withLockedValue { $0 } == 1)
    }
}
