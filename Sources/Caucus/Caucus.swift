// The SDK apps import. `import Caucus` brings `CaucusSession` with its helpers, events and
// snapshot, and the domain values they speak in (user and room ids, roles, statuses, room
// definitions, settings) from CaucusCore.
//
// The wire types of CaucusProtocol stay inside: its `Operation` would clash with
// Foundation's in every app file that imports both. The one protocol type apps use is
// re-exported by name.
@_exported import CaucusCore
import CaucusProtocol

/// The settings `CaucusSession.updateSettings` changes: only those named change.
public typealias SettingsChange = CaucusProtocol.SettingsChange
