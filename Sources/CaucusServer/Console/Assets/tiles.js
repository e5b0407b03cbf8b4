// The video tiles of the people in your location: name, microphone and camera state, and who
// speaks (the server's active speakers: a ring and the word, never the colour alone); a shared screen shown large above them; the media buttons
// (microphone, camera, screen) with their state; and why media is off, when it is.
// Tiles are kept by user id and only changed, never rebuilt, so playing videos keep playing.

import { h, fill } from "./dom.js";
import { roleSuffix } from "./words.js";

const initials = (name) => name.trim().split(/\s+/).slice(0, 2).map((word) => [...word][0] ?? "").join("").toUpperCase() || "?";

let areas = 0;

export class TileArea {
  constructor() {
    const headingId = `tiles-heading-${++areas}`;
    this.media = null;
    this.tiles = new Map();
    this.grid = h("div", { class: "tile-grid", testid: "tile-grid" });
    this.screen = h("figure", { class: "screen-share", testid: "screen-share", hidden: true });
    this.screenVideo = h("video", { autoplay: true, playsinline: true, muted: true });
    this.screenVideo.muted = true;
    this.screenCaption = h("figcaption", {});
    this.screen.append(this.screenVideo, this.screenCaption);
    this.note = h("p", { class: "media-note", testid: "media-note", role: "status", hidden: true });
    this.problem = h("div", { class: "media-problem", testid: "media-problem", role: "alert", hidden: true });
    this.heading = h("h3", { id: headingId }, "Video");
    this.mic = h("button", { type: "button", testid: "toggle-mic", "aria-pressed": "false", onclick: () => this.media?.toggleMicrophone() }, "Mute");
    this.camera = h("button", { type: "button", testid: "toggle-camera", "aria-pressed": "false", onclick: () => this.media?.toggleCamera() }, "Camera off");
    this.share = h("button", { type: "button", testid: "toggle-screen", "aria-pressed": "false", onclick: () => this.media?.toggleScreen().catch(() => {}) }, "Share screen");
    this.sound = h("button", { type: "button", class: "primary", testid: "enable-sound", hidden: true, onclick: () => this.media?.enableSound() }, "Turn on sound");
    this.controls = h("div", { class: "row media-controls", role: "group", "aria-label": "Your microphone, camera and screen" }, this.mic, this.camera, this.share, this.sound);
    this.element = h("section", { class: "card tiles", testid: "tiles", "aria-labelledby": headingId },
      h("div", { class: "row spread" }, this.heading, this.controls), this.problem, this.note, this.screen, this.grid);
  }

  attach(media) { this.media = media; }

  render(model) {
    const media = this.media;
    // Listening in, the page receives the listened room's sound and video instead of its own
    // location's: its tiles are that room's people.
    const listened = model.listeners.find((listener) => listener.user === model.you)?.room ?? null;
    const here = listened ?? model.location;
    fill(this.heading, listened != null ? `Video · Listening in to ${model.roomName(listened)}` : `Video · ${model.roomName(here)}`);
    this.element.dataset.listening = listened != null ? model.roomName(listened) : "";
    this.renderControls(model, media);
    this.renderNote(model);
    const people = model.usersIn(here);
    const wanted = new Set(people.map((user) => user.id));
    for (const [id, tile] of this.tiles) if (!wanted.has(id)) { tile.element.remove(); this.tiles.delete(id); }
    people.forEach((user, index) => {
      let tile = this.tiles.get(user.id);
      if (!tile) {
        tile = this.makeTile(user);
        this.tiles.set(user.id, tile);
      }
      if (this.grid.children[index] !== tile.element) this.grid.insertBefore(tile.element, this.grid.children[index] ?? null);
      this.updateTile(model, user, tile);
    });
    this.renderScreen(model);
  }

  makeTile(user) {
    const video = h("video", { autoplay: true, playsinline: true, muted: true });
    video.muted = true;
    const avatar = h("span", { class: "avatar", "aria-hidden": "true" });
    const name = h("span", { class: "tile-name" });
    const state = h("span", { class: "tile-state", testid: "tile-state" });
    const element = h("figure", { class: "tile", testid: "tile", role: "group", dataset: { user: String(user.id) } },
      video, avatar, h("figcaption", {}, name, state));
    return { element, video, avatar, name, state, track: null };
  }

  updateTile(model, user, tile) {
    const media = this.media;
    const me = user.id === model.you;
    const publishing = me ? media?.publishing ?? [] : user.publishing ?? [];
    const track = me ? (media?.cameraOn ? media?.videoTrack : null) ?? null : media?.trackOf(user.id) ?? null;
    if (track !== tile.track) {
      tile.track = track;
      tile.video.srcObject = track ? new MediaStream([track]) : null;
      if (track) tile.video.play().catch(() => {});
    }
    const micOff = !publishing.includes("audio");
    const cameraOff = !publishing.includes("video");
    // A muted person is never shown speaking, whatever the last list said.
    const speaking = Boolean(media?.speaking(user.id)) && !micOff;
    const away = user.presence?.connected === false;
    tile.element.dataset.userName = user.name;
    tile.element.dataset.muted = String(micOff);
    tile.element.dataset.speaking = String(speaking);
    tile.element.dataset.video = String(Boolean(track));
    tile.element.classList.toggle("speaking", speaking);
    tile.element.classList.toggle("no-video", !track);
    tile.element.title = user.name;
    fill(tile.avatar, initials(user.name));
    // The host and managers are named as such, in words, not by colour alone.
    const label = `${user.name}${me ? " (you)" : ""}${roleSuffix(model.role(user.id))}`;
    fill(tile.name, label);
    const states = [away ? "reconnecting" : null, micOff ? "muted" : speaking ? "speaking" : null, cameraOff ? "camera off" : null].filter(Boolean);
    fill(tile.state, states.join(" · "));
    tile.element.setAttribute("aria-label", `${label}: ${states.length ? states.join(", ") : "microphone and camera on"}`);
  }

  renderControls(model, media) {
    const ready = Boolean(media?.pc);
    const setButton = (button, pressed, text, usable) => {
      fill(button, text);
      button.setAttribute("aria-pressed", String(pressed));
      button.disabled = !usable;
    };
    setButton(this.mic, !media?.micOn, media?.micOn === false ? "Unmute" : "Mute", ready && Boolean(media?.audioTrack));
    setButton(this.camera, !media?.cameraOn, media?.cameraOn === false ? "Camera on" : "Camera off", ready && Boolean(media?.videoTrack));
    setButton(this.share, Boolean(media?.screen), media?.screen ? "Stop sharing" : "Share screen",
      ready && Boolean(navigator.mediaDevices?.getDisplayMedia) && model.roomAllows("screenShare"));
    this.sound.hidden = !media?.soundBlocked;
    if (media?.problem) {
      fill(this.problem, media.problem, " ", h("button", { type: "button", testid: "media-retry", onclick: () => media.start().catch(() => {}) }, "Try again"));
      this.problem.hidden = false;
    } else {
      this.problem.hidden = true;
    }
  }

  /** A paused or muted place says so, next to the tiles it silences. */
  renderNote(model) {
    const here = model.location;
    let text = null;
    if (here == null && model.roomsOpen) {
      const { paused, audioMuted, videoMuted } = model.breakout.parent;
      const off = [audioMuted ? "sound" : null, videoMuted ? "video" : null].filter(Boolean).join(" and ");
      if (paused) text = model.canManage ? "The main session is paused: participants here are not heard or seen; you are." : "The main session is paused: nobody here hears or sees you until the host resumes it.";
      if (off) text = `${text ? `${text} ` : ""}The main session's ${off} ${off.includes(" and ") ? "are" : "is"} off: nobody's ${off} goes through.`;
    } else if (here != null) {
      const definition = model.room(here)?.definition ?? {};
      const off = [definition.audio === false ? "sound" : null, definition.video === false ? "video" : null].filter(Boolean).join(" and ");
      if (off) text = `This room has no ${off}.`;
    }
    fill(this.note, text ?? "");
    this.note.hidden = !text;
  }

  renderScreen(model) {
    const shared = this.media?.sharedScreen;
    const mine = this.media?.screen;
    const track = shared?.track ?? mine ?? null;
    if (track !== this.screenTrack) {
      this.screenTrack = track;
      this.screenVideo.srcObject = track ? new MediaStream([track]) : null;
      if (track) this.screenVideo.play().catch(() => {});
    }
    this.screen.hidden = !track;
    const who = shared ? model.userName(shared.user) : "You";
    fill(this.screenCaption, track ? `${who} ${shared ? "is" : "are"} sharing a screen` : "");
    this.screen.setAttribute("aria-label", track ? `${who}'s screen` : "");
  }
}
