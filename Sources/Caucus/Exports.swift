import CaucusCore

// The values an app meets in the SDK's calls, events and snapshot, by name. Everything else in
// CaucusCore is the engine and stays out of an app's namespace. Names that would clash with an
// app's own types (a role, a location) carry the SDK's prefix. Times are `Date` and `Duration`:
// the core's instants are converted at the SDK's boundary (`Instant+Date.swift`), and the values
// that carry one (the timer, chat messages) are the SDK's own types.

public typealias UserID = CaucusCore.UserID
public typealias RoomID = CaucusCore.RoomID
public typealias HelpRequestID = CaucusCore.HelpRequestID
public typealias MessageID = CaucusCore.MessageID
public typealias CaucusRole = CaucusCore.Role
public typealias CaucusLocation = CaucusCore.Location
public typealias SessionMode = CaucusCore.SessionMode
public typealias SessionSettings = CaucusCore.SessionSettings
public typealias SessionLimits = CaucusCore.SessionLimits
public typealias RoomDefinition = CaucusCore.RoomDefinition
public typealias PlannedRoom = CaucusCore.PlannedRoom
public typealias StartOptions = CaucusCore.StartOptions
public typealias SubsessionStatus = CaucusCore.SubsessionStatus
public typealias ParentControl = CaucusCore.ParentControl
public typealias HelpRequest = CaucusCore.HelpRequest
public typealias HelpResult = CaucusCore.HelpResult
public typealias LeaveReason = CaucusCore.LeaveReason
public typealias EndReason = CaucusCore.EndReason
public typealias RoomCreators = CaucusCore.RoomCreators
public typealias RecordingSet = CaucusCore.RecordingSet
public typealias RecordingStop = CaucusCore.RecordingStop
public typealias RecordingStopReason = CaucusCore.RecordingStopReason
public typealias UserMove = CaucusCore.UserMove
public typealias MediaKind = CaucusCore.MediaKind
public typealias MediaKinds = CaucusCore.MediaKinds

/// The server's error codes (`docs/errors.md`): `SessionError.code` and `ServerError.errorCode`
/// are one, compared with constants such as `CaucusError.Code.needPassword`.
///
/// Only a namespace in the SDK: the core's error type (which carries the engine's `Command`
/// in `failureStatus(of:)`) never reaches an app, and `Code` is declared here, so that an
/// app's own library can put `CaucusError.Code` in its public signatures with `import Caucus`
/// alone (a nested type of the core's would need `import CaucusCore` there). A file that
/// imports `CaucusCore` too (a library built for library evolution must) meets two
/// `CaucusError`s and writes `Caucus.CaucusError.Code`; every other name is one.
public enum CaucusError {
    public typealias Code = CaucusCore.CaucusError.Code
}
