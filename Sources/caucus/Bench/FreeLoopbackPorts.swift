#if canImport(Glibc)
import Glibc
#endif

/// Free loopback ports for the nodes a bench starts (a node's URL names its port).
enum FreeLoopbackPorts {
    /// `count` ports, bound together so that they differ, then released.
    static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(socket)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
            }
            guard socket >= 0, bound else { throw BenchError("no free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
