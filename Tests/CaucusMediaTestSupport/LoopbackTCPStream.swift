#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CaucusMedia

/// A blocking TCP connection to a loopback port carrying RFC 4571 frames (a two-byte length
/// before each packet), with a receive timeout: ICE over TCP (RFC 6544) from the client's side,
/// for CaucusMedia's agents in front of the server's media port.
public struct LoopbackTCPStream: ~Copyable {
    public let descriptor: Int32
    private var pending: [UInt8] = []

    public enum Failure: Error { case system(String) }

    public init(connectingTo destination: TransportAddress, receiveTimeoutMilliseconds: Int) throws {
        guard case .v4(let ip) = destination.ip else { throw Failure.system("IPv4 only") }
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw Failure.system("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = destination.port.bigEndian
        address.sin_addr.s_addr = ip.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure.system("connect")
        }
        var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: Int((receiveTimeoutMilliseconds % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sends one packet, framed.
    public func send(_ packet: [UInt8]) {
        let frame = [UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
        _ = frame.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Whether the server closed the connection (an end of stream or a reset) before the
    /// receive timeout passed; what it sent before that is kept for ``receive()``.
    public mutating func isClosedByServer() -> Bool {
        while true {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                pending += buffer.prefix(count)
                continue
            }
            if count == 0 { return true }
            return errno == ECONNRESET
        }
    }

    /// The next packet, or nil when the timeout passes before a whole frame arrived.
    public mutating func receive() -> [UInt8]? {
        while true {
            if pending.count >= 2 {
                let length = Int(pending[0]) << 8 | Int(pending[1])
                if pending.count >= 2 + length {
                    let packet = Array(pending[2..<(2 + length)])
                    pending.removeFirst(2 + length)
                    return packet
                }
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            pending += buffer.prefix(count)
        }
    }
}
