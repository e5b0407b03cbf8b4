// The host's recording controls (and managers', when the host allows it): record every room
// (rooms created later too), the main session, or stop everything. Room cards carry their own
// record toggle (hostrooms.js). Everyone in a recorded location sees the indicator (panels.js).

import { h, fill } from "./dom.js";
import { stopReasonWords } from "./recording.js";

export class RecordingCard {
  constructor(act) {
    this.act = act;
    this.status = h("p", { testid: "recording-status", role: "status" });
    // Always in the page (empty when there is nothing to say), so that a stop is announced.
    this.stopped = h("p", { class: "recording-stopped", testid: "recording-stopped", role: "status" });
    this.everyRoom = h("button", { type: "button", testid: "record-every-room",
      onclick: (event) => this.act("startRecording", { all: true }, event.currentTarget) }, "Record every room");
    this.main = h("button", { type: "button", testid: "record-main",
      onclick: (event) => this.act(this.model?.isRecorded(null) ? "stopRecording" : "startRecording", { locations: [null] }, event.currentTarget) },
    "Record the main session");
    this.stop = h("button", { type: "button", testid: "record-stop-all",
      onclick: (event) => this.act("stopRecording", { all: true }, event.currentTarget) }, "Stop all recording");
    this.element = h("section", { class: "card", testid: "recording-card", "aria-labelledby": "recording-heading" },
      h("h3", { id: "recording-heading" }, "Recording"), this.status, this.stopped,
      h("div", { class: "row" }, this.everyRoom, this.main, this.stop),
      h("p", { class: "muted small" }, "Everyone in a recorded room (or the main session) is told that they are being recorded."));
  }

  render(model) {
    this.model = model;
    this.element.hidden = !model.canRecord;
    const recorded = [null, ...model.rooms.map((room) => room.id)].filter((location) => model.isRecorded(location));
    const everyRoom = model.recording?.everyRoom === true;
    fill(this.status, recorded.length === 0 && !everyRoom ? "Nothing is being recorded."
      : `Recording: ${everyRoom ? ["every room", ...(model.isRecorded(null) ? ["the main session"] : [])].join(" and ")
        : recorded.map((location) => model.roomName(location)).join(", ")}.`);
    this.everyRoom.hidden = everyRoom;
    fill(this.main, model.isRecorded(null) ? "Stop recording the main session" : "Record the main session");
    this.stop.hidden = recorded.length === 0 && !everyRoom;
    // The server's own stop stays shown until recording is next started or stopped.
    const stop = model.recording?.stopped;
    fill(this.stopped, stop == null ? null
      : `Recording stopped: ${stopReasonWords(stop.reason)} ${stopPlaces(model, stop.locations)}`);
  }
}

/** "Red and the main session are no longer recorded." (a room gone since: by its id). */
function stopPlaces(model, locations) {
  const names = locations.map((location) => model.roomName(location));
  const list = names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  return `${list} ${names.length === 1 ? "is" : "are"} no longer recorded.`;
}

/** A room card's record toggle and label: the label for every manager, the toggle for who may record. */
export function roomRecording(model, room, act) {
  const recorded = model.isRecorded(room.id);
  return [
    recorded ? h("span", { class: "recording-label", testid: "room-recorded" }, "Recording") : null,
    model.canRecord ? h("button", { type: "button", class: "quiet", testid: "room-record",
      onclick: (event) => act(recorded ? "stopRecording" : "startRecording", { locations: [room.id] }, event.currentTarget) },
    recorded ? "Stop recording" : "Record") : null,
  ];
}
