import CaucusMedia
import NIOCore

/// A protected datagram waiting in the router's outbox: where its bytes lie in the outbox's
/// one buffer, and where it goes as the media side and as NIO name it.
struct ForwardedDatagram {
    let offset: Int
    let length: Int
    let destination: TransportAddress
    let socketAddress: SocketAddress
}
