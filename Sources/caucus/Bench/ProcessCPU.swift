import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time a child process has used, from /proc.
enum ProcessCPU {
    /// User + system time of `pid`, in seconds; nil when /proc does not say.
    static func seconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
