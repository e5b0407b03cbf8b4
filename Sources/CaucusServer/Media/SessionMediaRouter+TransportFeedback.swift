import CaucusMedia

/// Transport-wide congestion control feedback to publishers: each packet's transport-wide
/// sequence number (read in place from the extension the publisher's answer kept) is recorded
/// with its arrival, and on the media loop's timer each publisher gets a transport-cc feedback
/// of what arrived, so its own estimator (Chromium's GoogCC) measures its path to the server and
/// raises its bitrate as that path allows.
extension SessionMediaRouter {
    /// Whose transport an incoming SSRC belongs to, and where its sequence number is.
    struct TransportSequenceSource {
        let publisher: Int
        let extensionID: UInt8
    }

    func recordTransportSequence(of packet: [UInt8], at arrival: Duration) {
        guard packet.count >= 12, let source = transportSequenceSources[Self.read32(packet, at: 8)],
            let element = RTPHeaderFields.extensionElement(id: source.extensionID, in: packet), element.count == 2
        else { return }
        let sequenceNumber = UInt16(element[element.startIndex]) << 8 | UInt16(element[element.startIndex + 1])
        transportFeedback[source.publisher, default: TransportFeedbackRecorder()].record(sequenceNumber, at: arrival)
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
        for (kind, format) in plan.publishedFormats {
            guard let id = format.headerExtensionIDs[RTPExtensionURI.transportWideCC] else { continue }
            for ssrc in [plan.publishedSSRCs[kind], plan.publishedRetransmissionSSRCs[kind]].compactMap({ $0 }) {
                transportSequenceSources[ssrc] = TransportSequenceSource(publisher: user, extensionID: id)
            }
        }
    }

    func forgetTransportSequences(of user: Int) {
        transportSequenceSources = transportSequenceSources.filter { $0.value.publisher != user }
        transportFeedback[user] = nil
    }
}
