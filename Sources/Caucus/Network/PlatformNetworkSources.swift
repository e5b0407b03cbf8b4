#if canImport(Network)
import Dispatch
import Foundation
import Network
import NIOConcurrencyHelpers
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Network.framework's path monitor and, with UIKit, the app's return to the foreground,
/// reported to a `NetworkWatcher`.
///
/// This file is compiled on Apple platforms only, and the machine the SDK is built and tested
/// on has no Apple SDK: it has never been built for one. AppleOnlyCodeTests typechecks it
/// against stand-ins for Network and UIKit (the API shapes it relies on), which is all that can
/// be checked here. It is kept to the API calls; what the reports mean is decided in
/// NetworkWatcher and NetworkPathChanges, which are tested.
///
/// `@unchecked Sendable`: `monitor` and `foreground` are set in `init` and never replaced;
/// `NWPathMonitor.cancel()` may be called from any thread, and `ForegroundObserver` guards its
/// own state with a lock.
final class PlatformNetworkSources: @unchecked Sendable {
    private let monitor = NWPathMonitor()
    #if canImport(UIKit) && !os(watchOS)
    private let foreground: ForegroundObserver
    #endif

    init(reportingTo watcher: NetworkWatcher) {
        monitor.pathUpdateHandler = { [weak watcher] path in
            let interface = path.availableInterfaces.first?.name
            watcher?.pathChanged(NetworkPath(isUsable: path.status == .satisfied, interface: interface))
        }
        monitor.start(queue: DispatchQueue(label: "caucus.network-path"))
        #if canImport(UIKit) && !os(watchOS)
        foreground = ForegroundObserver(reportingTo: watcher)
        #endif
    }

    func cancel() {
        monitor.cancel()
        #if canImport(UIKit) && !os(watchOS)
        foreground.cancel()
        #endif
    }
}

#if canImport(UIKit) && !os(watchOS)
/// Observes `UIApplication.willEnterForegroundNotification`. UIKit's names belong to the main
/// actor, so the observer is added there, a moment after `init`; `cancel` may come first.
///
/// `@unchecked Sendable`: `token` and `cancelled` are read and written only under `lock`.
private final class ForegroundObserver: @unchecked Sendable {
    private let lock = NIOLock()
    private var token: (any NSObjectProtocol)?
    private var cancelled = false

    init(reportingTo watcher: NetworkWatcher) {
        Task { @MainActor [weak watcher] in
            let token = NotificationCenter.default.addObserver(
                forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil
            ) { [weak watcher] _ in
                watcher?.returnedToForeground()
            }
            self.keep(token)
        }
    }

    private func keep(_ token: any NSObjectProtocol) {
        let late = lock.withLock {
            if !cancelled { self.token = token }
            return cancelled
        }
        if late { NotificationCenter.default.removeObserver(token) }
    }

    func cancel() {
        let token = lock.withLock {
            cancelled = true
            defer { self.token = nil }
            return self.token
        }
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}
#endif

#else

/// No platform reports network changes here (no Network.framework): an app that learns of one
/// may call `CaucusSession.networkDidChange()`.
struct PlatformNetworkSources: Sendable {
    init(reportingTo watcher: NetworkWatcher) {}

    func cancel() {}
}

#endif
