import CaucusCore

extension SessionServer {
    /// Refuses a join (2032) from an address that sent too many wrong passwords for the session
    /// lately (``PasswordAttempts``), before the session is asked: whatever the password, until
    /// the count's window ends.
    func refuseTooManyPasswords(_ key: PasswordAttempts.Key, session: String, at now: Instant) throws(CaucusError) {
        guard let until = passwordAttempts.withLockedValue({ $0.refusedUntil(key, now: now) }) else { return }
        let minutes = max(1, (now.secondsUntil(until) + 59) / 60)
        throw CaucusError(
            .passwordAttemptsExceeded,
            "Too many wrong passwords for \(session) from this address: try again in \(minutes) minute\(minutes == 1 ? "" : "s").")
    }
}
