// Panels both views show: room chat, notices, banners, the timer line.

import { h, fill, formatDuration, formatClock } from "./dom.js";
import { showErrorNear, clearErrorNear } from "./feedback.js";
import { roleSuffix } from "./words.js";

/** The server's limit, said before sending rather than cut silently. */
export function tooLong(text, limit) {
  return text.length > limit ? `The message is too long: ${text.length.toLocaleString("en")} characters, at most ${limit.toLocaleString("en")}.` : null;
}

/**
 * Room chat: the messages of the room you are in now (and direct ones) under its name;
 * what was said in rooms you were in before stays below, under each room's name.
 */
export class ChatPanel {
  constructor(act, getModel) {
    this.getModel = getModel;
    this.log = h("ol", { class: "chat-log", testid: "chat-log" });
    this.earlier = h("div", { class: "chat-earlier", testid: "chat-earlier" });
    this.title = h("h3", { class: "plain", testid: "chat-title" }, "Chat");
    const text = h("input", { testid: "chat-text", placeholder: "Message your room", autocomplete: "off", "aria-label": "Message" });
    const send = h("button", { type: "submit", testid: "chat-send" }, "Send");
    const form = h("form", { class: "row chat-form", onsubmit: async (event) => {
      event.preventDefault();
      const limit = this.getModel()?.limits?.maxChatLength ?? 4000;
      if (!text.value.trim()) return;
      const problem = tooLong(text.value, limit);
      if (problem) { showErrorNear(send, problem); return; }
      clearErrorNear(send);
      if (await act("chat", { text: text.value }, send)) text.value = "";
    } }, text, send);
    this.element = h("section", { class: "card chat", testid: "chat" }, this.title, this.log, form, this.earlier);
  }

  render(model) {
    const here = model.location;
    fill(this.title, `Chat · ${model.roomName(here)}`);
    const inRoom = (message) => message.scope.to != null || (message.scope.room ?? null) === here;
    const line = (message) => h("li", { testid: "chat-message" },
      h("span", { class: "muted" }, formatClock(message.sentAt), " "),
      // The sender's role from the session, as everywhere names are shown: never from the name.
      h("strong", {}, `${model.userName(message.from)}${roleSuffix(model.role(message.from))}`),
      message.scope.to != null ? h("span", { class: "muted" }, ` → ${model.userName(message.scope.to)}`) : null,
      ": ", message.text);
    const current = model.chat.filter(inRoom).slice(-100);
    fill(this.log, current.length ? current.map(line) : h("li", { class: "muted" }, "No messages here yet."));
    // Earlier rooms, newest first, each under its own name.
    const groups = new Map();
    for (const message of model.chat) {
      if (inRoom(message)) continue;
      const room = message.scope.room ?? null;
      if (!groups.has(room)) groups.set(room, []);
      groups.get(room).push(message);
    }
    fill(this.earlier, groups.size === 0 ? null : h("details", {},
      h("summary", {}, "Earlier chat in other rooms"),
      [...groups.entries()].reverse().map(([room, messages]) => h("section", { testid: "chat-earlier-room", dataset: { room: model.roomName(room) } },
        h("h4", {}, model.roomName(room)), h("ol", { class: "chat-log" }, messages.slice(-50).map(line))))));
    this.log.scrollTop = this.log.scrollHeight;
  }
}

/** What happened lately, newest first. */
export class NoticePanel {
  constructor() {
    this.items = [];
    this.list = h("ol", { class: "notices", testid: "notices" });
    this.element = h("section", { class: "card" }, h("h3", {}, "Notices"), this.list);
  }

  add(notice) {
    const text = typeof notice === "object" ? notice.text : notice;
    this.items.unshift({ text, at: Date.now() });
    this.items.length = Math.min(this.items.length, 30);
    fill(this.list, this.items.map((item) => h("li", { testid: "notice" }, h("span", { class: "muted" }, formatClock(item.at), " "), item.text)));
  }
}

/**
 * What stays on screen while it holds: the last broadcast and timer warning (until the
 * timer changes or the rooms close), who moved you, and the main session's pause and mute.
 */
export class Banners {
  constructor() {
    this.broadcast = h("div", { class: "banner broadcast", testid: "broadcast-banner", role: "status", hidden: true });
    this.warning = h("div", { class: "banner warning", testid: "timer-warning", role: "status", hidden: true });
    this.moved = h("div", { class: "banner moved", testid: "moved-banner", role: "status", hidden: true });
    this.parent = h("div", { class: "banner parent", testid: "main-session-state", role: "status", hidden: true });
    this.voice = h("div", { class: "banner broadcast", testid: "voice-broadcast-banner", role: "status", hidden: true });
    this.listening = h("div", { class: "banner parent", testid: "listening-banner", role: "status", hidden: true });
    // Consent: whoever is in a recorded location always sees it, first.
    this.recording = h("div", { class: "banner recording", testid: "recording-indicator", role: "status", hidden: true });
    this.element = h("div", { class: "banners" }, this.recording, this.moved, this.warning, this.voice, this.listening, this.broadcast, this.parent);
  }

  render(model) {
    const show = (element, text) => { fill(element, text ?? ""); element.hidden = !text; };
    show(this.broadcast, model.banners.broadcast);
    show(this.warning, model.banners.warning);
    show(this.moved, model.banners.moved);
    show(this.parent, model.roomsOpen ? parentWords(model) : null);
    show(this.voice, model.voiceBroadcaster == null ? null : voiceWords(model));
    show(this.listening, listeningWords(model));
    const recording = recordingWords(model);
    show(this.recording, recording);
    if (recording) this.recording.setAttribute("aria-label", recording);
    else this.recording.removeAttribute("aria-label");
  }
}

/** Whether this user's location is recorded, in words. */
export function recordingWords(model) {
  if (!model.isRecorded(model.location)) return null;
  return model.location == null ? "The main session is being recorded." : "This room is being recorded.";
}

/** Who speaks to every room now. */
function voiceWords(model) {
  return model.voiceBroadcaster === model.you
    ? "You are speaking to every room."
    : `${model.userName(model.voiceBroadcaster)} is speaking to every room.`;
}

/**
 * Who listens in to your room (a room always sees it), or to which room you listen in.
 */
function listeningWords(model) {
  const mine = model.listeners.find((listener) => listener.user === model.you);
  if (mine) return `You are listening in to ${model.roomName(mine.room)}.`;
  if (model.location == null) return null;
  const names = model.listenersOf(model.location);
  return names.length ? `Listening in to this room: ${names.join(", ")}.` : null;
}

/** The main session's pause and mute, for the people they concern. */
export function parentWords(model) {
  const { paused, audioMuted, videoMuted } = model.breakout.parent;
  const muted = audioMuted && videoMuted ? "muted (sound and video)" : audioMuted ? "muted (sound)" : videoMuted ? "muted (video)" : null;
  if (!paused && !muted) return null;
  const state = [paused ? "paused" : null, muted].filter(Boolean).join(" and ");
  const inMain = model.location == null;
  if (model.canManage) return `The main session is ${state}.`;
  return inMain
    ? `The main session is ${state}${paused ? ": chat here is closed until the host resumes it" : ""}.`
    : `The main session is ${state} while you are in your room.`;
}

/** "Ends in 4:59", "Everyone returns in 0:05", or nothing to count. */
export function timerText(model) {
  const phase = model.breakout.phase;
  if (phase.status === "stopping" && phase.stopsAt) return `Everyone returns in ${formatDuration(phase.stopsAt - model.serverNow())}`;
  if (phase.status === "started" && model.breakout.timer) return `Ends in ${formatDuration(model.breakout.timer.endsAt - model.serverNow())}`;
  if (phase.status === "started") return "No timer";
  return "";
}
