import CaucusMedia

/// Coalesces and paces the server's keyframe requests (PLI) to each publisher stream. A
/// keyframe answers everyone at once, so while one request is outstanding (asked, and no
/// keyframe has come since) more of them — other subscribers' PLIs, other slots switching to
/// the same stream — are held back; a keyframe ends the wait, and a request outstanding for
/// ``retryAfter`` (the PLI or the keyframe was lost) may be sent again.
///
/// The server also asks on a subscriber's behalf, when a loss cannot be repaired (a NACK of a
/// packet the cache no longer holds, a packet its publisher never sent again): the
/// subscriber's decoder cannot go on without a keyframe, and some stacks (aiortc) ask for one
/// only seconds later. Those requests are spaced by at least ``onBehalfSpacing`` per stream,
/// so a subscriber losing much cannot make its publisher send nothing but keyframes.
public struct KeyframeRequests: Sendable {
    public static let retryAfter = Duration.milliseconds(500)
    public static let onBehalfSpacing = Duration.milliseconds(500)

    private var outstandingSince: [UInt32: Duration] = [:]
    private var lastOnBehalf: [UInt32: Duration] = [:]

    public init() {}

    /// Whether to send a request for `ssrc` now; if so, it is outstanding from `now`.
    public mutating func shouldRequest(_ ssrc: UInt32, at now: Duration) -> Bool {
        if let since = outstandingSince[ssrc], now - since < Self.retryAfter { return false }
        outstandingSince[ssrc] = now
        return true
    }

    /// Whether to ask for a keyframe of `ssrc` now on a subscriber's behalf, for a loss that
    /// cannot be repaired: as ``shouldRequest(_:at:)``, and not within ``onBehalfSpacing`` of
    /// the last such request.
    public mutating func shouldRequestOnBehalf(_ ssrc: UInt32, at now: Duration) -> Bool {
        if let last = lastOnBehalf[ssrc], now - last < Self.onBehalfSpacing { return false }
        guard shouldRequest(ssrc, at: now) else { return false }
        lastOnBehalf[ssrc] = now
        return true
    }

    /// A keyframe of `ssrc` arrived: the next request goes out at once.
    public mutating func keyframeArrived(_ ssrc: UInt32) {
        outstandingSince[ssrc] = nil
    }

    /// Forgets a stream that is gone.
    public mutating func forget(_ ssrc: UInt32) {
        outstandingSince[ssrc] = nil
        lastOnBehalf[ssrc] = nil
    }
}
