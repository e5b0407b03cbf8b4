import CaucusMedia

/// Transport-wide congestion control feedback to the publishers: a part of the
/// ``ForwardingEngine`` with state of its own. Per publisher that negotiated the transport-cc
/// header extension, its ID and the arrivals of its packets (``TransportFeedbackRecorder``);
/// on the engine's timer, one feedback per publisher whose packets arrived since the last, so
/// that its own estimator (Chromium's GoogCC) measures its path to the server.
///
/// The engine tells it who publishes with which plan (``learn(_:plan:)``, ``forget(_:)``) and
/// hands it each packet as it arrives; it knows nothing of slots, routes or subscribers.
struct PublisherFeedback {
    /// The extension's ID in each publisher's packets (BUNDLE gives it one across the peer's
    /// sections).
    private var extensionIDs: [Int: UInt8] = [:]
    /// What each publisher's numbers say arrived since its last feedback.
    private var recorders: [Int: TransportFeedbackRecorder] = [:]

    /// `user`'s new peer: the extension's ID its answer kept, if any; what an earlier peer
    /// recorded is forgotten.
    mutating func learn(_ user: Int, plan: MediaSlotPlan) {
        forget(user)
        extensionIDs[user] = plan.publishedFormats.values.lazy.compactMap { $0.headerExtensionIDs[RTPExtensionURI.transportWideCC] }.first
    }

    mutating func forget(_ user: Int) {
        extensionIDs[user] = nil
        recorders[user] = nil
    }

    /// Records the transport-wide sequence number of `user`'s `packet`, read in place, whatever
    /// the packet's SSRC (simulcast layers and probes on SSRCs no offer named count too). A
    /// packet without the extension, or from a user that did not negotiate it, changes nothing.
    mutating func record(_ packet: [UInt8], from user: Int, at arrival: Duration) {
        guard let id = extensionIDs[user], let element = RTPHeaderFields.extensionElement(id: id, in: packet), element.count == 2
        else { return }
        let sequenceNumber = UInt16(element[element.startIndex]) << 8 | UInt16(element[element.startIndex + 1])
        recorders[user, default: TransportFeedbackRecorder()].record(sequenceNumber, at: arrival)
    }

    /// One feedback per publisher whose packets arrived since the last, in the publishers'
    /// order, each about `mediaSSRC(publisher)` and from `senderSSRC`.
    mutating func due(senderSSRC: UInt32, mediaSSRC: (Int) -> UInt32) -> [(user: Int, rtcp: [UInt8])] {
        var due: [(user: Int, rtcp: [UInt8])] = []
        for publisher in recorders.keys.sorted() where recorders[publisher]!.hasArrivals {
            if let feedback = recorders[publisher]!.feedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC(publisher)) {
                due.append((publisher, feedback.encoded()))
            }
        }
        return due
    }
}
