@testable import Caucus
import Foundation
import Testing

/// An upgraded connection given up on a path that went silent (`Socket.abandon`) must unwind
/// before its event loop shuts down: WSClient closes its channel as it unwinds, and a close
/// sent to a loop already shut down is what SwiftNIO prints as an error and, in strict mode
/// (`SWIFTNIO_STRICT=1`, as `scripts/test` runs this suite), crashes on. The race is made
/// likely here: the cooperative pool is kept busy across the moment the loop used to be shut
/// down under the connection (a second after the abandonment), so that WSClient's unwinding
/// task runs late, as it does on a loaded machine.
@Suite(.serialized) struct SocketAbandonTests {
    @Test func anAbandonedUpgradedSocketUnwindsOnALiveLoopEvenWhenItsTaskRunsLate() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        for round in 1...3 {
            proxy.misbehave(.stallAfterUpgrade)
            let socket = try await Socket.connect(to: proxy.url.absoluteString, configuration: Client.configuration)
            let abandoned = ContinuousClock.now
            socket.abandon()
            // Every thread of the pool busy from just before the old shutdown until well after
            // it, then more work queued behind the shutdown, ahead of WSClient's unwinding.
            let busy = (0..<4).map { index in
                Task.detached {
                    try? await Task.sleep(until: abandoned + .milliseconds(index < 2 ? 950 : 1_010), clock: .continuous)
                    let end = ContinuousClock.now + .milliseconds(index < 2 ? 400 : 300)
                    while ContinuousClock.now < end {}
                }
            }
            for task in busy { await task.value }
            let ended = try await within("round \(round): the abandoned socket's end") { () -> Bool in
                for await item in socket.inbound { if case .closed = item { return true } }
                return true
            }
            #expect(ended)
        }
        proxy.reopen()
        await proxy.stop()
        await server.stop()
    }
    /// An attempt whose upgrade never completes (a peer that closes after reading the request,
    /// or one that swallows everything) is given up by shutting its loop down under it, a
    /// second on; nothing of it runs on the loop after that, however late its task runs.
    @Test(arguments: [TCPProxy.Mode.acceptAndClose, .blackhole])
    func anAttemptThatNeverUpgradesEndsWithItsLoopEvenWhenItsTaskRunsLate(_ mode: TCPProxy.Mode) async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        proxy.misbehave(mode)
        var configuration = Client.configuration
        configuration.connectTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let busy = (0..<4).map { index in
            Task.detached {
                // The watchdog gives up at 0.5 s, the loop is shut a second later.
                try? await Task.sleep(until: started + .milliseconds(index < 2 ? 1_450 : 1_510), clock: .continuous)
                let end = ContinuousClock.now + .milliseconds(index < 2 ? 400 : 300)
                while ContinuousClock.now < end {}
            }
        }
        await #expect(throws: SessionError.self) {
            _ = try await Socket.connect(to: proxy.url.absoluteString, configuration: configuration)
        }
        for task in busy { await task.value }
        // The loop's end reached the task, whose last step is to end the stream.
        try await Task.sleep(for: .milliseconds(500))
        proxy.reopen()
        await proxy.stop()
        await server.stop()
    }
}
