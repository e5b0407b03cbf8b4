import NIOConcurrencyHelpers

/// Tells the session when the device's network changed under it, so that it checks its
/// connection at once rather than at the next ping (see `SessionEngine.networkChanged`).
/// Started when the session is joined, stopped when it is over.
///
/// The reports come from the platform (PlatformNetworkSources): on Apple platforms,
/// Network.framework's path monitor and, with UIKit, the app's return to the foreground;
/// elsewhere nothing, and an app may report changes itself (`CaucusSession.networkDidChange()`).
/// Which path updates count is decided here and in `NetworkPathChanges`, in code that is
/// compiled and tested on every platform.
final class NetworkWatcher: Sendable {
    typealias Handler = @Sendable () -> Void

    private struct State {
        var handler: Handler?
        var changes = NetworkPathChanges()
        var sources: PlatformNetworkSources?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a session is being told of changes.
    var isWatching: Bool { state.withLockedValue { $0.handler != nil } }

    /// Calls `handler` on every network change from now on, until `stop()`. Starting again
    /// replaces the handler and the platform's sources.
    func start(_ handler: @escaping Handler) {
        stop()
        state.withLockedValue { $0.handler = handler }
        // Outside the lock: a source may report the current path while it starts.
        let sources = PlatformNetworkSources(reportingTo: self)
        state.withLockedValue { $0.sources = sources }
    }

    /// Stops: no handler is called from now on, and the platform's sources are cancelled.
    func stop() {
        let sources = state.withLockedValue { state in
            defer { state = State() }
            return state.sources
        }
        sources?.cancel()
    }

    /// The path monitor saw `path`.
    func pathChanged(_ path: NetworkPath) {
        let handler = state.withLockedValue { state in
            guard state.handler != nil, state.changes.isChange(path) else { return nil as Handler? }
            return state.handler
        }
        handler?()
    }

    /// The app came back to the foreground: its connection may have died while it was away.
    func returnedToForeground() {
        state.withLockedValue { $0.handler }?()
    }
}
