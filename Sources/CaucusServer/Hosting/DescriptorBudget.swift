#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file descriptors the process may open, and how they are shared: a reserve for what is
/// not a client (the store, the media sockets, the data folder's files, the listeners), then
/// half of the rest for connections not joined yet and half for joined users. Connections that
/// never join can then take at most their half: joined users, the store and `/healthz` on
/// `--health-port` keep working while strangers hold every place they may.
public enum DescriptorBudget {
    /// Descriptors kept for everything that is not a client connection.
    public static let reserved = 256

    /// The process's limit of open files (the soft `RLIMIT_NOFILE`); nil if it cannot be read
    /// or is unlimited.
    public static func openFileLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit of open files to the hard one (a server's connections are its
    /// files; the soft limit is often 1,024 where the hard one is far higher). Returns the
    /// limit in force afterwards.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int? {
        var limit = rlimit()
        if getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
        }
        return openFileLimit()
    }

    /// The default ceiling of connections not joined yet under `limit` open files: half of
    /// what is left after the reserve, and at least 16. Without a known limit, 32,768.
    public static func defaultMaxWaiting(openFiles limit: Int?) -> Int {
        guard let limit else { return 32_768 }
        return max(16, (limit - reserved) / 2)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
