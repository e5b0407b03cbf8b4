import CaucusMedia

/// Transport-wide congestion control feedback to publishers (``PublisherFeedback``): each
/// packet's transport-wide sequence number (read in place from the extension the publisher's
/// answer kept) is recorded with its arrival, and on the media loop's timer each publisher gets
/// a transport-cc feedback of what arrived, so its own estimator (Chromium's GoogCC) measures
/// its path to the server and raises its bitrate as that path allows.
extension ForwardingEngine {
    /// The transport-wide sequence number of `user`'s packet, when its answer kept the
    /// extension: recorded whatever the packet's SSRC.
    func recordTransportSequence(of packet: [UInt8], from user: Int, at arrival: Duration) {
        publisherFeedback.record(packet, from: user, at: arrival)
    }

    /// One feedback per publisher whose packets arrived since the last, about the lowest SSRC
    /// it publishes on.
    func transportFeedbackDue() -> [(user: Int, rtcp: [UInt8])] {
        publisherFeedback.due(senderSSRC: Self.routerSSRC) { publisher in
            subscribers[publisher]?.plan.publishedSSRCs.values.min() ?? 0
        }
    }
}
