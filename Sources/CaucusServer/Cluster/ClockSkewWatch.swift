import CaucusCore
import CaucusStore
import Logging
import ServiceLifecycle

/// Several nodes write their lease times in their own clock and read the others' against it:
/// a node whose clock runs ahead takes sessions whose leases are still live, one behind loses
/// its own. This measures the node's clock against the database's (`ClusterStore.storeClock`,
/// halfway through the round trip): a start with more than `allowance` of skew is refused, and
/// while the node runs a skew past it is logged once a minute as an error.
struct ClockSkewWatch: Service {
    let store: any ClusterStore
    let cluster: ClusterConfiguration
    let clock: ServerClock
    let logger: Logger

    /// Half the margin a node keeps between giving its sessions up and its lease's end: within
    /// it, fencing still holds; beyond it, leases mean something else to each node.
    static func allowance(of cluster: ClusterConfiguration) -> Duration { cluster.giveUpMargin / 2 }

    /// This node's clock minus the database's (positive when the node is ahead), and the
    /// round trip it was measured over: the skew is known to within half of it.
    static func measure(store: any ClusterStore, clock: ServerClock) async throws -> (skew: Duration, roundTrip: Duration) {
        let before = clock().milliseconds
        let database = try await store.storeClock().milliseconds
        let after = clock().milliseconds
        return (.milliseconds((before + after) / 2 - database), .milliseconds(after - before))
    }

    /// The sentence for a skew of `skew`, or nil within the allowance — or when a slow round
    /// trip leaves it too uncertain to judge (a busy database must not stop a node starting).
    static func problem(_ skew: Duration, roundTrip: Duration, allowance: Duration) -> String? {
        guard roundTrip < allowance, abs(skew.milliseconds) - roundTrip.milliseconds / 2 > allowance.milliseconds else { return nil }
        let seconds = Double(abs(skew.milliseconds)) / 1000
        return "This node's clock is \(seconds.formatted(.number.precision(.fractionLength(1)))) s \(skew > .zero ? "ahead of" : "behind") "
            + "the database's (at most \(allowance) is allowed): leases are written in each node's time, so a node ahead takes "
            + "others' sessions early and one behind loses its own. Synchronise the clock (NTP)"
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: .seconds(60))) != nil {
                guard let (skew, roundTrip) = try? await Self.measure(store: store, clock: clock) else { continue }
                // Running already: the clock can be mended under it, no restart needed.
                if let problem = Self.problem(skew, roundTrip: roundTrip, allowance: Self.allowance(of: cluster)) { logger.error("\(problem).") }
            }
        }
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
