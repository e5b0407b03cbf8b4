import NIOConcurrencyHelpers

/// One call to the database, between its caller, who waits no longer than its deadline (a
/// lease's horizon, a listing's patience: `StoreDeadline`), and its work on a connection of
/// the pool, which may take longer.
///
/// When the caller's deadline passes, the caller is answered at once ("no answer in time").
/// The work is stopped only if it holds no connection: a wait for one is given up. A query
/// already sent goes on until it is answered or until it has held its connection for the
/// store's own bound (`callDeadline`: a link that went silent), and only then is its
/// connection closed. Closing it at the caller's deadline, as before, cost the node a
/// connection for every slow answer, and with PostgreSQL's slots all taken by another program
/// a closed connection cannot be replaced: two slow answers on a busy machine left a node with
/// none (`PostgresGivenUpCallsTests`).
///
/// An answer that comes after its caller left is dropped. A write may so commit after its
/// caller was told it had no answer, as it could before when a connection closed just after
/// its `COMMIT` was sent: the callers already treat "no answer" as "unknown", and a lease
/// taken that way is taken again by the same node on its next request.
final class StoreCall: Sendable {
    /// The call the current task's store work belongs to (`PostgresSessionStore.withConnection`).
    @TaskLocal static var current: StoreCall?

    private struct State {
        /// Since when the work has held its connection (nil: it holds none).
        var heldSince: ContinuousClock.Instant?
        var callerLeft = false
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var finished = false
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `body` as a task of its own and returns its result, or throws `StoreCallGivenUp`
    /// at `callerDeadline` (or the caller's cancellation) if it has not finished by then.
    /// At `ownDeadline` (`bound` after the call began) the work is cancelled, and
    /// `withConnection` closes its connection, unless the connection it holds was taken less
    /// than `bound` ago: then when it has held it that long. A query's time starts when it has
    /// a connection; a wait for one does not shorten it.
    static func run<T: Sendable>(
        callerDeadline: ContinuousClock.Instant, bound: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let ownDeadline = ContinuousClock.now + bound
        let call = StoreCall()
        let answer = StoreCallAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(continuation)
                let work = Task {
                    let result: Result<T, any Error>
                    do {
                        result = .success(try await $current.withValue(call, operation: body))
                    } catch {
                        result = .failure(error)
                    }
                    answer.give(result)
                    call.finished()
                }
                call.started(work)
                call.timed(Task {
                    // Cancelled once the work is over: then both sleeps end at once and
                    // cancelling the finished work does nothing.
                    try? await Task.sleep(until: callerDeadline)
                    if !answer.isGiven {
                        call.callerLeaves()
                        answer.give(.failure(StoreCallGivenUp()))
                    }
                    // Also after a caller that was cancelled: its query may hang as well.
                    if ownDeadline > callerDeadline { try? await Task.sleep(until: ownDeadline) }
                    while !Task.isCancelled, let closing = call.closing(after: bound), closing > .now {
                        try? await Task.sleep(until: closing)
                    }
                    work.cancel()
                })
            }
        } onCancel: {
            call.callerLeaves()
            answer.give(.failure(CancellationError()))
        }
    }

    private func started(_ work: Task<Void, Never>) {
        let leftAlready = state.withLockedValue { state in
            state.work = work
            return state.callerLeft
        }
        if leftAlready { work.cancel() }
    }

    private func timed(_ timer: Task<Void, Never>) {
        let finishedAlready = state.withLockedValue { state in
            state.timer = timer
            return state.finished
        }
        if finishedAlready { timer.cancel() }
    }

    /// The work is over: its deadlines need no timer.
    private func finished() {
        state.withLockedValue { state in
            state.finished = true
            return state.timer
        }?.cancel()
    }

    /// The caller stops waiting. Work that holds no connection stops now; a query sent goes on.
    private func callerLeaves() {
        let waiting: Task<Void, Never>? = state.withLockedValue { state in
            state.callerLeft = true
            return state.heldSince == nil ? state.work : nil
        }
        waiting?.cancel()
    }

    /// When the connection the work holds will have been held for `bound` (nil: it holds none).
    private func closing(after bound: Duration) -> ContinuousClock.Instant? {
        state.withLockedValue { $0.heldSince.map { $0 + bound } }
    }

    /// The work got a connection from the pool: whether it may use it (false once its caller
    /// left, and the connection goes back to the pool unused).
    func takesConnection() -> Bool {
        state.withLockedValue { state in
            guard !state.callerLeft else { return false }
            state.heldSince = .now
            return true
        }
    }

    /// The work is done with its connection.
    func returnsConnection() {
        state.withLockedValue { $0.heldSince = nil }
    }
}

/// Thrown to a caller whose deadline passed before its call finished.
struct StoreCallGivenUp: Error {}

/// The one answer a caller gets: the work's result or the deadline's, whichever comes first.
private final class StoreCallAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var given = false
    }

    private let state = NIOLockedValueBox(State())

    var isGiven: Bool { state.withLockedValue(\.given) }

    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLockedValue { state in
            guard let early = state.early else {
                state.continuation = continuation
                return nil
            }
            state.early = nil
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func give(_ result: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLockedValue { state in
            guard !state.given else { return nil }
            state.given = true
            guard let continuation = state.continuation else {
                state.early = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        waiting?.resume(with: result)
    }
}
