import CaucusCore
import Foundation

// The core counts time in its own instants (milliseconds since the Unix epoch, handed in by
// the shell); an app displays dates and durations. The SDK converts at its boundary, here, so
// no instant reaches an app.

extension Date {
    /// The same moment as a core instant.
    init(_ instant: Instant) {
        self.init(timeIntervalSince1970: Double(instant.milliseconds) / 1000)
    }
}
