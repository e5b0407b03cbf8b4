import CaucusCore

// The session's settings count in whole seconds, as the protocol carries them and as
// `SettingsChange` sets them; an app showing them reads durations.
extension SessionSettings {
    /// How long a stop with the default countdown leaves before everyone returns.
    public var countdown: Duration { .seconds(countdownSeconds) }
    /// How long before a timer's end each warning comes, as `timerWarningSeconds` says.
    public var timerWarnings: [Duration] { timerWarningSeconds.map { .seconds($0) } }
}
