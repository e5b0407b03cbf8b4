import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Free loopback TCP ports, found by binding port 0 (all of them at once, so that they differ)
/// and closing: for servers whose port must be known before they start (PostgreSQL, a node
/// whose URL names its port).
public enum FreePorts {
    public static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw PostgresTestFailure("socket() failed") }
            sockets.append(socket)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    Glibc.bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
                }
            }
            guard bound else { throw PostgresTestFailure("bind() failed") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
