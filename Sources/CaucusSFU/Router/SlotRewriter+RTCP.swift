import CaucusMedia

/// The RTCP a slot's rewriting makes necessary: its sender reports speak of the slot's stream,
/// and a subscriber's feedback about the slot goes back to the source that filled it.
extension SlotRewriter {
    /// The source's sender report as the slot's: the slot's SSRC, the source's RTP timestamp
    /// moved by the current offset (so it lines up with the rewritten packets' timestamps), the
    /// slot's own counts. Nil for a report from any other source, or before its first packet.
    public func translate(_ report: RTCPSenderReport) -> RTCPSenderReport? {
        guard let run, report.ssrc == run.source else { return nil }
        return RTCPSenderReport(
            ssrc: outgoingSSRC, ntpTimestamp: report.ntpTimestamp, rtpTimestamp: report.rtpTimestamp &+ run.timestampOffset,
            packetCount: packetCount, octetCount: octetCount)
    }

    /// Where a PLI or FIR about this slot goes: the source filling it now, if any.
    public var keyframeTarget: UInt32? { source }

    /// A subscriber's NACK of the slot's sequence numbers, as NACKs to the sources that sent
    /// those packets, with their original numbers (one per source, in the order the NACK names them).
    /// Numbers the slot never sent, or sent too many switches ago, are left out.
    public func translate(_ nack: RTCPGenericNACK, senderSSRC: UInt32) -> [RTCPGenericNACK] {
        var lostBySource: [(source: UInt32, lost: [UInt16])] = []
        for sequenceNumber in nack.lostSequenceNumbers {
            guard let (source, original) = original(of: sequenceNumber) else { continue }
            if let index = lostBySource.firstIndex(where: { $0.source == source }) {
                lostBySource[index].lost.append(original)
            } else {
                lostBySource.append((source, [original]))
            }
        }
        return lostBySource.map { RTCPGenericNACK(senderSSRC: senderSSRC, mediaSSRC: $0.source, lost: $0.lost) }
    }

    /// The source and original sequence number of an outgoing one, from the current run or a
    /// recent one.
    func original(of outgoing: UInt16) -> (source: UInt32, sequenceNumber: UInt16)? {
        origin(of: outgoing).map { ($0.source, $0.sequenceNumber) }
    }

    /// Where a packet the slot sent as `outgoing` came from (the current run or one of the
    /// last few), for answering a NACK from the retransmission cache.
    public func origin(of outgoing: UInt16) -> PacketOrigin? {
        // The current run, then the older ones, newest first (without an array of them: a NACK
        // answered allocates nothing).
        if let run, let origin = origin(of: outgoing, in: run) { return origin }
        for candidate in history.reversed() {
            if let origin = origin(of: outgoing, in: candidate) { return origin }
        }
        return nil
    }

    private func origin(of outgoing: UInt16, in candidate: Run) -> PacketOrigin? {
        guard SerialNumber.contains(outgoing, from: candidate.firstOut, through: candidate.lastOut) else { return nil }
        return PacketOrigin(
            source: candidate.source, sequenceNumber: outgoing &- candidate.sequenceOffset, outgoingSSRC: outgoingSSRC,
            outgoingSequenceNumber: outgoing, timestampOffset: candidate.timestampOffset)
    }
}

/// A packet a slot forwarded: the source and number it came with, and how it was renumbered.
public struct PacketOrigin: Hashable, Sendable {
    public let source: UInt32
    public let sequenceNumber: UInt16
    let outgoingSSRC: UInt32
    let outgoingSequenceNumber: UInt16
    let timestampOffset: UInt32

    /// The header the packet went out with, given its original timestamp: a retransmission
    /// carries exactly that.
    public func header(originalTimestamp: UInt32) -> RewrittenHeader {
        RewrittenHeader(ssrc: outgoingSSRC, sequenceNumber: outgoingSequenceNumber, timestamp: originalTimestamp &+ timestampOffset)
    }
}
