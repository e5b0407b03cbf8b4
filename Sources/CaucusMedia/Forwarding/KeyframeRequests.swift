/// Coalesces and paces the server's keyframe requests (PLI) to each publisher stream. A
/// keyframe answers everyone at once, so while one request is outstanding (asked, and no
/// keyframe has come since) more of them — other subscribers' PLIs, other slots switching to
/// the same stream — are held back; a keyframe ends the wait, and a request outstanding for
/// ``retryAfter`` (the PLI or the keyframe was lost) may be sent again.
public struct KeyframeRequests: Sendable {
    public static let retryAfter = Duration.milliseconds(500)

    private var outstandingSince: [UInt32: Duration] = [:]

    public init() {}

    /// Whether to send a request for `ssrc` now; if so, it is outstanding from `now`.
    public mutating func shouldRequest(_ ssrc: UInt32, at now: Duration) -> Bool {
        if let since = outstandingSince[ssrc], now - since < Self.retryAfter { return false }
        outstandingSince[ssrc] = now
        return true
    }

    /// A keyframe of `ssrc` arrived: the next request goes out at once.
    public mutating func keyframeArrived(_ ssrc: UInt32) {
        outstandingSince[ssrc] = nil
    }

    /// Forgets a stream that is gone.
    public mutating func forget(_ ssrc: UInt32) {
        outstandingSince[ssrc] = nil
    }
}
