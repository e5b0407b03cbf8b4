import CaucusMedia
import NIOCore

/// A protected datagram ready for the socket: its bytes, and where it goes as the media side
/// and as NIO name it.
struct ForwardedDatagram {
    let buffer: ByteBuffer
    let destination: TransportAddress
    let socketAddress: SocketAddress
}
