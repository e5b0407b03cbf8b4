import CaucusCore
import Foundation

/// The running breakout timer: when the subsessions stop by themselves, and the warnings
/// still to come. `endsAt` is the server's clock; `remaining(at:)` gives a countdown to show.
public struct BreakoutTimer: Sendable, Hashable, CustomStringConvertible {
    /// When the subsessions stop by themselves.
    public let endsAt: Date
    /// The warnings not yet given, as time before `endsAt`, longest first. Each arrives as
    /// `SessionEvent.timerWarning`.
    public let pendingWarnings: [Duration]

    /// A timer ending at `endsAt`, for previews and tests; the session makes the real ones.
    public init(endsAt: Date, pendingWarnings: [Duration] = []) {
        self.endsAt = endsAt
        self.pendingWarnings = pendingWarnings
    }

    init(_ timer: CaucusCore.BreakoutTimer) {
        self.init(endsAt: Date(timer.endsAt), pendingWarnings: timer.pendingWarnings.map { .seconds($0) })
    }

    /// The time left at `now` (by default, this device's clock), never negative.
    public func remaining(at now: Date = Date()) -> Duration {
        .milliseconds(max(0, Int64((endsAt.timeIntervalSince(now) * 1000).rounded())))
    }

    public var description: String { "timer ending at \(endsAt)" }
}
