import CaucusMedia
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TransportAddress {
    /// The address of a datagram's source; nil for a Unix socket address, which UDP never has.
    /// IPv4 is read from the `sockaddr_in` directly: this runs for every datagram.
    init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self.init(ip: .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr)), port: UInt16(bigEndian: v4.address.sin_port))
        case .v6:
            guard let text = address.ipAddress, let ip = IPAddress(text), let port = address.port else { return nil }
            self.init(ip: ip, port: UInt16(port))
        case .unixDomainSocket:
            return nil
        }
    }

    /// Where NIO sends a datagram for this address.
    var socketAddress: SocketAddress {
        switch ip {
        case .v4(let value):
            var raw = sockaddr_in()
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = port.bigEndian
            raw.sin_addr.s_addr = value.bigEndian
            return SocketAddress(raw, host: "")
        case .v6:
            // Parsed text of our own formatting: it always makes an address.
            return (try? SocketAddress(ipAddress: ip.description, port: Int(port))) ?? SocketAddress(sockaddr_in(), host: "")
        }
    }
}
