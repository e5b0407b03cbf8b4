import CaucusMedia

/// Transport-wide congestion control feedback to publishers: each packet's transport-wide
/// sequence number (read in place from the extension the publisher's answer kept) is recorded
/// with its arrival, and on the media loop's timer each publisher gets a transport-cc feedback
/// of what arrived, so its own estimator (Chromium's GoogCC) measures its path to the server and
/// raises its bitrate as that path allows.
extension ForwardingEngine {
    /// The transport-wide sequence number of `user`'s packet, when its answer kept the
    /// extension: recorded whatever the packet's SSRC (simulcast layers and probes on SSRCs no
    /// offer named count too; BUNDLE gives the extension one ID across the peer's sections).
    func recordTransportSequence(of packet: [UInt8], from user: Int, at arrival: Duration) {
        guard let id = transportSequenceIDs[user], let element = RTPHeaderFields.extensionElement(id: id, in: packet), element.count == 2
        else { return }
        let sequenceNumber = UInt16(element[element.startIndex]) << 8 | UInt16(element[element.startIndex + 1])
        transportFeedback[user, default: TransportFeedbackRecorder()].record(sequenceNumber, at: arrival)
    }

    /// One feedback per publisher whose packets arrived since the last.
    func transportFeedbackDue() -> [(user: Int, rtcp: [UInt8])] {
        var due: [(user: Int, rtcp: [UInt8])] = []
        for publisher in transportFeedback.keys.sorted() where transportFeedback[publisher]!.hasArrivals {
            let mediaSSRC = subscribers[publisher]?.plan.publishedSSRCs.values.min() ?? 0
            if let feedback = transportFeedback[publisher]!.feedback(senderSSRC: Self.routerSSRC, mediaSSRC: mediaSSRC) {
                due.append((publisher, feedback.encoded()))
            }
        }
        return due
    }

    func learnTransportSequences(of user: Int, plan: MediaSlotPlan) {
        transportSequenceIDs[user] = plan.publishedFormats.values.lazy.compactMap { $0.headerExtensionIDs[RTPExtensionURI.transportWideCC] }.first
    }

    func forgetTransportSequences(of user: Int) {
        transportSequenceIDs[user] = nil
        transportFeedback[user] = nil
    }
}
