import Testing

@testable import CaucusServer

/// A stopping server waits for the requests being handled (`InFlightRequests`).
@Suite struct InFlightRequestsTests {
    @Test func drainedReturnsAtOnceWhenNothingRuns() async {
        let requests = InFlightRequests()
        await requests.drained()
        #expect(requests.count == 0)
    }

    @Test func drainedWaitsForTheLastRequestToEnd() async {
        let requests = InFlightRequests()
        requests.begin()
        requests.begin()
        // What `drained` sees when it returns: had it returned early, a request would still run.
        let seen = Task { await requests.drained(); return requests.count }
        for _ in 0..<100 { await Task.yield() }
        requests.end()
        for _ in 0..<100 { await Task.yield() }
        requests.end()
        #expect(await seen.value == 0)
    }
}
