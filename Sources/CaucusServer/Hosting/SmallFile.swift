#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small regular file an operator names on the command line (a certificate, a key, a shared
/// secret), read whole, or why not in words (the system's reason, as `strerror` gives it).
enum SmallFile {
    enum Failure: Error, Equatable {
        /// The reason it cannot be read ("No such file or directory", "not a regular file").
        case unreadable(String)
        /// Larger than the caller allows: the size found (nil: grew past it while read).
        case tooLarge(Int?)

        var reason: String {
            switch self {
            case .unreadable(let why): "cannot be read: \(why)"
            case .tooLarge(let size?): "is \(size) bytes: too large"
            case .tooLarge(nil): "too large"
            }
        }
    }

    static func contents(of path: String, largest: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unreadable("not a regular file") }
        guard Int(status.st_size) <= largest else { throw .tooLarge(Int(status.st_size)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            bytes += chunk[..<count]
            guard bytes.count <= largest else { throw .tooLarge(nil) }
        }
        return bytes
    }
}
