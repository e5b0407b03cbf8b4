import CaucusMedia
import NIOCore

/// A protected datagram waiting in the router's outbox: where its bytes lie in the outbox's
/// one buffer, and where it goes as the media side and as NIO name it.
struct ForwardedDatagram {
    let offset: Int
    let length: Int
    let destination: TransportAddress
    let socketAddress: SocketAddress
    /// The SSRC it leaves on, for RTP (nil: RTCP). Copies of different streams to one
    /// subscriber may leave in another order than queued (`SegmentationPlan`); one stream's never.
    var stream: UInt32? = nil
}
