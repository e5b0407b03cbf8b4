import Foundation

/// Runs blocking work (waiting for a child process, reading its pipes) on a thread of its
/// own and awaits it. Swift's cooperative pool has one thread per core, two on this machine,
/// and every test of `swift test` shares it: a test that blocks one of them for seconds
/// (a Python or Chromium starting) starves every in-process server and client of the run,
/// whose calls then time out.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
