import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time a child process has used, from /proc.
enum ProcessCPU {
    /// A process's CPU time so far, in seconds: in its own code (user) and in the kernel on its
    /// behalf (system: its system calls, the network stack under them).
    struct Times {
        var user: Double
        var system: Double
        var total: Double { user + system }
    }

    /// User + system time of `pid`, in seconds; nil when /proc does not say.
    static func seconds(of pid: Int32) -> Double? {
        times(of: pid)?.total
    }

    /// User and system time of `pid`, in seconds; nil when /proc does not say.
    static func times(of pid: Int32) -> Times? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Times(user: user / ticks, system: system / ticks)
    }
}
