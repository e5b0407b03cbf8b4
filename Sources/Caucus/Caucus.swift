// The SDK apps import. `import Caucus` brings `CaucusSession` with its helpers, events and
// snapshot, and the domain values they speak in, re-exported by name (`Exports.swift`).
//
// The engine stays inside: the core's state machine (`SessionState`, `Command`, `Event`,
// `Audience`, `SplitMix64`…) and the wire types of CaucusProtocol (whose `Operation` would
// clash with Foundation's) are not reachable from an app that imports only `Caucus`.
import CaucusCore
import CaucusProtocol

/// The settings `CaucusSession.updateSettings` changes: only those named change.
public typealias SettingsChange = CaucusProtocol.SettingsChange
