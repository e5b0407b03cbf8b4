#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 UDP socket that asks to share its port (`SO_REUSEADDR`), as another program's socket
/// might. Linux applies the same rule when it picks a free port for a bind to port 0: a port held
/// only by sockets that allow sharing counts as free for a socket that allows it too. So a media
/// socket that allows sharing can be handed, as its "free" port, to another program's client on
/// the same machine, and then one of the two gets the other's datagrams.
public struct SharingUDPSocket: ~Copyable {
    public let descriptor: Int32
    public let port: Int

    public enum Failure: Error, Equatable {
        /// The kernel refused the port: a socket holds it that does not share it.
        case portInUse
        case system(String)
    }

    /// Bound to `host`:`port`; port 0 lets the kernel choose.
    public init(host: String, port: Int) throws(Failure) {
        let descriptor = ipv4UDPDescriptor()
        guard descriptor >= 0 else { throw .system("socket") }
        var yes: Int32 = 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0,
            inet_pton(AF_INET, host, &address.sin_addr) == 1
        else {
            close(descriptor)
            throw .system("setsockopt or inet_pton \(host)")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            throw error == EADDRINUSE ? .portInUse : .system("bind: errno \(error)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// True when such a socket binds `host`:`port` (it is closed at once), false when the kernel
    /// refuses it.
    public static func binds(host: String, port: Int) throws(Failure) -> Bool {
        do throws(Failure) {
            _ = try SharingUDPSocket(host: host, port: port)
            return true
        } catch .portInUse {
            return false
        }
    }
}
