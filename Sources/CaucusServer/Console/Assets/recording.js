// What the session records, as the server's RecordingSet says: `{ locations, everyRoom }`
// (null in `locations` is the main session), or null when nothing is recorded.

/** Whether a location (null: the main session) is recorded now, as the server's `isRecorded` says. */
export function isRecorded(model, location) {
  const recording = model.recording;
  if (!recording) return false;
  if (location == null) return recording.locations.includes(null);
  return model.room(location) != null && (recording.everyRoom || recording.locations.includes(location));
}

/** Whether this user may start and stop recording: the host, managers if the setting allows. */
export function canRecord(model) {
  return model.myRole === "host" || (model.myRole === "manager" && model.settings.managersMayRecord === true);
}

/** Applies a `recordingChanged` event; says so when this user's own location started or stopped being recorded. */
export function applyRecording(model, event) {
  const before = isRecorded(model, model.location);
  const empty = event.locations.length === 0 && !event.everyRoom;
  model.recording = empty ? null : { locations: event.locations, everyRoom: event.everyRoom };
  const after = isRecorded(model, model.location);
  if (before === after) return null;
  return `${model.roomName(model.location)} is ${after ? "now" : "no longer"} being recorded.`;
}
