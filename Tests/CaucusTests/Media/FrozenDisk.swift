import Foundation

/// A disk that hangs, for real: a small ext4 file system on a loop device, which `fsfreeze`
/// freezes (every write to it then blocks until it thaws, as on a hung disk or a shared path
/// that stopped answering). A watchdog process thaws it after ``watchdogSeconds`` whatever the
/// test does, so that a failing test never leaves a thread (or the test process) blocked.
/// Needs root and a loop device.
final class FrozenDisk: Sendable {
    static let watchdogSeconds = 30

    let mount: String
    private let image: String

    init() throws {
        let base = NSTemporaryDirectory() + "caucus-frozen-disk-" + UUID().uuidString
        (mount, image) = (base, base + ".img")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        try Self.run("/usr/bin/truncate", ["-s", "64M", image])
        try Self.run("/sbin/mkfs.ext4", ["-q", "-F", image])
        try Self.run("/bin/mount", ["-o", "loop", image, mount])
    }

    /// Freezes the file system, and starts the watchdog that thaws it.
    func freeze() throws {
        try Self.run("/sbin/fsfreeze", ["-f", mount])
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", "sleep \(Self.watchdogSeconds); /sbin/fsfreeze -u '\(mount)' 2>/dev/null"]
        try watchdog.run()
    }

    func thaw() {
        try? Self.run("/sbin/fsfreeze", ["-u", mount])
    }

    /// Thaws, unmounts and deletes it.
    func remove() {
        thaw()
        try? Self.run("/bin/umount", ["-l", mount])
        try? FileManager.default.removeItem(atPath: mount)
        try? FileManager.default.removeItem(atPath: image)
    }

    /// Whether this process can make one: tried once (root, the tools, a loop device).
    static let isAvailable: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/sbin/fsfreeze") else { return false }
        guard let disk = try? FrozenDisk() else { return false }
        disk.remove()
        return true
    }()

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) failed"])
        }
    }
}
