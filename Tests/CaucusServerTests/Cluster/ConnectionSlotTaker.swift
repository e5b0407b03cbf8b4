import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Another program's connections to PostgreSQL, taking every free connection slot and holding
/// it (a fourth node starting, a reporting job, a leak): each is a real session of PostgreSQL's
/// wire protocol (a startup message, trust authentication), opened until the server refuses
/// with "too many clients" (SQLSTATE 53300), and left idle.
final class ConnectionSlotTaker {
    private let port: Int
    private let user: String
    private let database: String
    private(set) var held: [Int32] = []

    init(port: Int, user: String, database: String) {
        self.port = port
        self.user = user
        self.database = database
    }

    deinit { release() }

    /// Opens connections until the server refuses one; returns how many it opened now.
    @discardableResult
    func takeEveryFreeSlot() throws -> Int {
        var opened = 0
        while let socket = try openSession() {
            held.append(socket)
            opened += 1
        }
        return opened
    }

    func release() {
        for socket in held { close(socket) }
        held = []
    }

    /// One session, or nil when the server refused it for want of a slot.
    private func openSession() throws -> Int32? {
        let socket = try LoopbackSocket.connect(port: port)
        var body: [UInt8] = [0, 3, 0, 0]  // protocol 3.0
        for (key, value) in [("user", user), ("database", database)] {
            body += Array(key.utf8) + [0] + Array(value.utf8) + [0]
        }
        body += [0]
        let length = UInt32(body.count + 4)
        try LoopbackSocket.write(withUnsafeBytes(of: length.bigEndian, Array.init) + body, to: socket)
        // Messages until ReadyForQuery ('Z': a session) or ErrorResponse ('E': refused).
        while true {
            let header = try read(5, from: socket)
            let size = Int(UInt32(header[1]) << 24 | UInt32(header[2]) << 16 | UInt32(header[3]) << 8 | UInt32(header[4])) - 4
            let payload = try read(size, from: socket)
            switch header[0] {
            case UInt8(ascii: "Z"):
                return socket
            case UInt8(ascii: "E"):
                close(socket)
                let text = String(decoding: payload, as: UTF8.self)
                guard text.contains("53300") else { throw TestFailure("PostgreSQL refused a session: \(text)") }
                return nil
            default:
                continue
            }
        }
    }

    private func read(_ count: Int, from socket: Int32) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes[filled...].withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { throw TestFailure("PostgreSQL closed a session while it opened") }
            filled += got
        }
        return bytes
    }
}
