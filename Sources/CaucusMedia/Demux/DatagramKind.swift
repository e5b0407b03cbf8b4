/// What a datagram on the shared media port carries, told apart by its first bytes as
/// RFC 7983 §7 prescribes (and RTCP from RTP by payload type, RFC 5761 §4).
public enum DatagramKind: Sendable, Equatable {
    case stun
    case dtls
    case rtp
    case rtcp
    /// ZRTP, TURN channel data, or anything else this server does not speak: dropped.
    case unknown

    public init(classifying datagram: [UInt8]) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3:
            // A STUN header is 20 bytes; anything shorter cannot be one.
            self = datagram.count >= 20 ? .stun : .unknown
        case 20...63:
            self = .dtls
        case 128...191:
            guard datagram.count >= 2 else {
                self = .unknown
                return
            }
            // RTCP packet types 192–223 (SR 200, RR 201, …) occupy the byte where RTP keeps
            // its marker bit and payload type; RFC 5761 keeps RTP payload types clear of them.
            self = (192...223).contains(datagram[1]) ? .rtcp : .rtp
        default:
            self = .unknown
        }
    }
}
