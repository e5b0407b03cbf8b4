/// A first join whose connection is closed 4009: the server already holds as many connections
/// waiting to join from the client's address as it allows, which a class behind one NAT
/// opening its links together can meet. The join is tried again on a new connection after a
/// delay that doubles from `crowdedRetryDelays.lowerBound` up to its upper bound, each scaled
/// by a random factor in 0.5–1.5 so that the class does not come back at one instant; after
/// `crowdedRetryLimit` such closes the join fails as the last close says.
extension SessionMachine {
    static let crowdedRetryLimit = 8
    static let crowdedRetryDelays: ClosedRange<Duration> = .milliseconds(200) ... .seconds(3)

    /// Whether `socket`, closed with `code`, was a join's closed 4009 that will be tried again.
    mutating func retryCrowdedJoin(closed socket: SocketID, code: UInt16?, at now: Instant) -> Bool {
        guard code == 4009, case .joining(var joining) = phase, case .joining(socket) = joining.stage,
            joining.crowdedRetries < Self.crowdedRetryLimit
        else { return false }
        // The join sent on it will never be answered there: the next connection asks again.
        for (id, request) in pending where request.socket == socket {
            pending[id] = nil
            emit(.cancelTimer(.request(id)))
        }
        let delay = Self.crowdedRetryDelay(after: joining.crowdedRetries, random: random.nextUnit())
        joining.crowdedRetries += 1
        let attempt = newAttempt()
        joining.stage = .waitingToRetry(attempt: attempt)
        phase = .joining(joining)
        emit(.schedule(.joinRetry(attempt: attempt), at: now + delay))
        return true
    }

    /// The delay before the retry that follows `retries` earlier ones; `random` is uniform in 0..<1.
    static func crowdedRetryDelay(after retries: Int, random: Double) -> Duration {
        let doubled = crowdedRetryDelays.lowerBound * (1 << min(retries, 16))
        return min(doubled, crowdedRetryDelays.upperBound) * (0.5 + min(max(random, 0), 1))
    }

    mutating func crowdedJoinRetryDue(_ attempt: Int, at now: Instant) {
        guard case .joining(var joining) = phase, case .waitingToRetry(attempt) = joining.stage else { return }
        let retry = newAttempt()
        joining.stage = .opening(attempt: retry, url: url, remaining: [])
        phase = .joining(joining)
        emit(.open(url: url, attempt: retry))
    }
}
