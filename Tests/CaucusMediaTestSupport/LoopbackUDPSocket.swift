#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CaucusMedia

/// A blocking IPv4 UDP socket with a receive timeout: just enough to put CaucusMedia's agents
/// on a real port in front of a real peer (aiortc, or the server's media port), without event
/// loops. Shared by the media and the server tests.
public struct LoopbackUDPSocket: ~Copyable {
    public let descriptor: Int32
    public let port: UInt16

    public enum Failure: Error { case system(String) }

    /// Bound to 127.0.0.1: replies must leave from the address the peer checked, which a
    /// socket bound to 0.0.0.0 does not promise (a peer on a LAN address gets them from there).
    public init(receiveTimeoutMilliseconds: Int) throws {
        let descriptor = ipv4UDPDescriptor()
        guard descriptor >= 0 else { throw Failure.system("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw Failure.system("bind")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: Int((receiveTimeoutMilliseconds % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// The next datagram and its IPv4 source, or nil when the timeout passes first.
    public func receive() -> ([UInt8], TransportAddress)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count > 0 else { return nil }
        let address = TransportAddress(ip: .v4(UInt32(bigEndian: source.sin_addr.s_addr)), port: UInt16(bigEndian: source.sin_port))
        return (Array(buffer.prefix(count)), address)
    }

    public func send(_ datagram: [UInt8], to destination: TransportAddress) {
        guard case .v4(let ip) = destination.ip else { return }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = destination.port.bigEndian
        address.sin_addr.s_addr = ip.bigEndian
        _ = datagram.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}

/// A new IPv4 UDP socket's descriptor, or -1.
func ipv4UDPDescriptor() -> Int32 {
    #if canImport(Glibc)
    socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    #else
    socket(AF_INET, SOCK_DGRAM, 0)
    #endif
}
