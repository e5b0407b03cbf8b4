import CaucusMedia

/// What the forwarding engine asks its shell to do, taken with
/// ``ForwardingEngine/pollOutput(_:)``: the engine never touches a socket, a signalling
/// connection or a clock.
public enum ForwardingOutput {
    /// A packet for a subscriber: the shell protects it with the subscriber's SRTP context and
    /// sends it.
    case copy(ForwardingEngine.Copy, CopyPurpose)
    /// RTCP for a user, to protect and send.
    case rtcp(user: Int, packet: [UInt8], RTCPPurpose)
    /// A subscriber's slot map, with the speakers its audio slots follow when it is told them
    /// (one frame: the map and the speakers agree), for its signalling channel.
    case slotMap(user: Int, SubscriberSlotMap, activeSpeakers: [Int]?)
    /// What a recorded publisher sent, for the recording shell (``ForwardingEngine/record(_:)``).
    case record(ForwardingEngine.RecordedMedia)

    public enum CopyPurpose: Sendable {
        /// A publisher's packet, forwarded to a slot it fills.
        case forward
        /// A cached packet sent again for a subscriber's NACK.
        case repair
        /// A cached packet repeated to probe a subscriber's downlink.
        case probe
        /// A padding packet that ends what a video slot showed (``SlotRewriter/closingHeader(at:)``).
        case closing
    }

    public enum RTCPPurpose: Sendable {
        /// A PLI to a publisher.
        case keyframeRequest
        /// A NACK to a publisher.
        case nack
        /// Transport-wide feedback to a publisher, or a sender report to a subscriber.
        case report

        /// The purpose of a compound packet the engine made, by its first packet's type.
        init(classifying rtcp: [UInt8]) {
            switch rtcp.count > 1 ? rtcp[1] : 0 {
            case 206: self = .keyframeRequest
            case 205 where rtcp[0] & 0x1F == 1: self = .nack
            default: self = .report
            }
        }
    }
}

/// What the engine counted since it started, for the shell's metrics.
public struct ForwardingCounters: Hashable, Sendable {
    /// Recomputations of some users' slots.
    public var recomputations = 0
    /// Receive slots whose source changed.
    public var slotSwitches = 0
    /// RTP a user sent under an SSRC another user publishes, dropped.
    public var foreignSSRCs = 0

    public init() {}
}
