import Dispatch
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// What a bench would leave on the machine if it were stopped half-way: the children it
/// started (a `caucus serve`, the relay) and the data folders it made (recordings and all:
/// about 145 MB a run of `bench media --record`).
///
/// A bench ends them itself when it ends (``ServerUnderTest/stop()``); this is for the other
/// way it ends: Ctrl-C (SIGINT) or a SIGTERM (`timeout`, a CI job cancelled). Without it the
/// bench died at once, its data folder stayed in the temporary folder and a `caucus serve`
/// child sent SIGTERM alone went on running, orphaned, holding its ports. With it, the first
/// registration installs handlers for both signals; on either, every child still running is
/// sent SIGTERM (then SIGKILL if it has not exited within ``childPatience``), every folder is
/// removed once they have exited (a server still writing would put files back), and the
/// bench exits with 128 + the signal's number, as a shell reports a process the signal ended.
///
/// A `kill -9` of the bench is beyond any handler: its folder stays (`caucus-bench-…` in the
/// temporary folder).
///
/// Why the handlers cost the children nothing: a signal a handler catches is reset to its
/// default in a child at `exec`, and libdispatch's sources catch it (an ignored signal would
/// have stayed ignored in every child: a relay that ignored SIGTERM could not be stopped).
enum BenchLeftovers {
    /// How long a child has, after SIGTERM, before SIGKILL.
    static let childPatience: Duration = .seconds(10)

    private struct State {
        var folders: Set<String> = []
        var children: [Int32: Process] = [:]
        var handlers = Handlers()
    }

    /// The installed signal sources, held so that they live as long as the process.
    // Safe to send: the array is only read and appended to under ``state``'s lock, and the
    // sources in it are never touched again once resumed (libdispatch runs their handlers).
    private struct Handlers: @unchecked Sendable {
        var sources: [any DispatchSourceSignal] = []
    }

    private static let state = NIOLockedValueBox(State())
    private static let queue = DispatchQueue(label: "caucus.bench.leftovers")

    /// A folder to remove if the bench is stopped before it removes it (``forget(folder:)``).
    static func adopt(folder: String) {
        installHandlers()
        state.withLockedValue { _ = $0.folders.insert(folder) }
    }

    static func forget(folder: String) {
        state.withLockedValue { _ = $0.folders.remove(folder) }
    }

    /// A child to stop if the bench is stopped before it stops it (``forget(child:)``).
    static func adopt(child: Process) {
        installHandlers()
        state.withLockedValue { $0.children[child.processIdentifier] = child }
    }

    static func forget(child: Process) {
        state.withLockedValue { _ = $0.children.removeValue(forKey: child.processIdentifier) }
    }

    /// Installs the handlers (once): before a child starts, so that no signal can come
    /// between its start and its adoption with nothing to catch it.
    static func installHandlers() {
        state.withLockedValue { state in
            guard state.handlers.sources.isEmpty else { return }
            for signal in [SIGINT, SIGTERM] {
                let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
                source.setEventHandler { stopped(by: signal) }
                source.resume()
                state.handlers.sources.append(source)
            }
        }
    }

    /// Ends the children, removes the folders, exits. Runs on ``queue``, once: it exits.
    private static func stopped(by signal: Int32) {
        let (children, folders) = state.withLockedValue { (Array($0.children.values), $0.folders) }
        for child in children where child.isRunning { kill(child.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + childPatience
        for child in children {
            while child.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if child.isRunning {
                kill(child.processIdentifier, SIGKILL)
                child.waitUntilExit()
            }
        }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        let removed = folders.isEmpty ? "" : "; removed \(folders.sorted().joined(separator: ", "))"
        FileHandle.standardError.write(Data("bench: stopped by signal \(signal); \(children.count) child process(es) ended\(removed)\n".utf8))
        exit(128 + signal)
    }
}
