// What the session records, as the server's RecordingSet says: `{ locations, everyRoom, stopped }`
// (null in `locations` is the main session; `stopped`, when present, is the server's last stop
// of its own, `{ locations, reason }`), or null when nothing is recorded and there is no stop.

/** Why the server stopped recording on its own, in one sentence (the server's RecordingStopReason). */
export function stopReasonWords(reason) {
  switch (reason) {
    case "diskFull": return "The server's disk is full.";
    case "quotaExceeded": return "The recording quota of this app is used up.";
    default: return "The server could not write the recording.";
  }
}

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

/**
 * Applies a `recordingChanged` event; says so when this user's own location started or stopped
 * being recorded (and why, when the server stopped it on its own).
 */
export function applyRecording(model, event) {
  const before = isRecorded(model, model.location);
  const empty = event.locations.length === 0 && !event.everyRoom;
  const stopped = event.stopped ?? null;
  model.recording = empty && stopped == null ? null : { locations: event.locations, everyRoom: event.everyRoom, stopped };
  const after = isRecorded(model, model.location);
  if (before === after) return null;
  const why = !after && stopped != null ? ` ${stopReasonWords(stopped.reason)}` : "";
  return `${model.roomName(model.location)} is ${after ? "now" : "no longer"} being recorded.${why}`;
}
