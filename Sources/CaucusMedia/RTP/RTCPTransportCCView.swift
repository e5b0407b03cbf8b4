/// Transport-wide congestion control feedback (RTPFB format 15) read where it lies in its
/// datagram: its SSRCs, and its feedback control information as a slice of the datagram (what
/// the information says is the SFU's to read: `RTCPTransportFeedbackView`). A subscriber sends
/// one every 50–100 ms, so reading it copies nothing.
public struct RTCPTransportCCView {
    public let senderSSRC: UInt32
    public let mediaSSRC: UInt32
    public let feedbackControlInformation: ArraySlice<UInt8>

    init(datagram: [UInt8], body: Range<Int>) {
        senderSSRC = datagram.loadBigEndianUInt32(at: body.lowerBound)
        mediaSSRC = datagram.loadBigEndianUInt32(at: body.lowerBound + 4)
        feedbackControlInformation = datagram[(body.lowerBound + 8)..<body.upperBound]
    }

    static func isTransportCC(_ header: RTCPCompoundWalk.Header) -> Bool {
        header.packetType == RTCPFeedbackType.transport && header.count == RTCPFeedbackType.transportCCFormat
    }

    /// Both SSRCs: what ``RTCPPacket/decodeCompound(_:)`` asks of any feedback packet.
    static func isWellFormed(_ body: Range<Int>) -> Bool {
        body.count >= 8
    }

    /// The same feedback, decoded (as ``RTCPPacket/decodeCompound(_:)`` gives it).
    public var decoded: RTCPOpaqueFeedback {
        RTCPOpaqueFeedback(
            packetType: RTCPFeedbackType.transport, format: RTCPFeedbackType.transportCCFormat, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            feedbackControlInformation: Array(feedbackControlInformation))
    }
}
