import CaucusMedia

/// A publisher's peer that has just finished its handshake. Until then the shell cannot protect
/// RTCP for it, so a keyframe request made while it connected (a renewed peer after a
/// reconnect: every slot that shows it switches to its new SSRCs and waits for a keyframe) was
/// dropped on the way, yet counted as outstanding; the slots waited until a subscriber's own
/// request got through, seconds later. Once connected, its streams that any slot shows or
/// waits for are asked for a keyframe at once.
extension ForwardingEngine {
    public func peerConnected(_ user: Int, now: Duration) {
        for ssrc in upTracks.keys.sorted() {
            guard let track = upTracks[ssrc], track.stream.publisher == user, track.repair != nil,
                !routes.destinations(of: ssrc).isEmpty
            else { continue }
            keyframeRequests.forget(ssrc)
            if keyframeRequests.shouldRequest(ssrc, at: now) {
                outputs.append(.rtcp(user: user, packet: Self.pli(ssrc), .keyframeRequest))
            }
        }
    }
}
