/// What the SDK needs to know of a network path: whether it can carry traffic, and the
/// interface it would use first (`en0`, `pdp_ip0`, …).
struct NetworkPath: Equatable, Sendable {
    var isUsable: Bool
    var interface: String?
}

/// Which path updates are network changes worth checking the connection for: the path usable
/// again after it was not, or usable through another interface (Wi-Fi to cellular). A path
/// that goes away is not one: nothing can be done without a path, and the check comes when
/// it returns. The first path seen is not one either: a path monitor reports the current
/// path as it starts.
///
/// Pure: the platform's monitor feeds it (NetworkWatcher), tests drive it directly.
struct NetworkPathChanges: Sendable {
    private var last: NetworkPath?

    init() {}

    /// Whether `path`, the newest path seen, is a change to react to.
    mutating func isChange(_ path: NetworkPath) -> Bool {
        defer { last = path }
        guard let last, path.isUsable else { return false }
        return !last.isUsable || last.interface != path.interface
    }
}
