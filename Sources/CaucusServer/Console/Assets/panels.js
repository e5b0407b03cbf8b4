// Panels both views show: room chat, notices, and the timer line.

import { h, fill, formatDuration, formatClock } from "./dom.js";

/** Room chat: messages of your room (and direct ones), and a box to write. */
export class ChatPanel {
  constructor(act) {
    this.log = h("ol", { class: "chat-log", testid: "chat-log" });
    this.title = h("h3", { testid: "chat-title" }, "Chat");
    const text = h("input", { testid: "chat-text", placeholder: "Message your room", maxlength: 4000, autocomplete: "off" });
    const form = h("form", { class: "row", onsubmit: async (event) => {
      event.preventDefault();
      if (!text.value.trim()) return;
      if (await act("chat", { text: text.value })) text.value = "";
    } }, text, h("button", { type: "submit", testid: "chat-send" }, "Send"));
    this.element = h("section", { class: "card chat" }, this.title, this.log, form);
  }

  render(model) {
    fill(this.title, `Chat · ${model.roomName(model.me?.location ?? null)}`);
    fill(this.log, model.chat.slice(-100).map((message) => h("li", { testid: "chat-message" },
      h("span", { class: "muted" }, formatClock(message.sentAt), " "),
      h("strong", {}, model.userName(message.from)),
      message.scope.to != null ? h("span", { class: "muted" }, ` → ${model.userName(message.scope.to)}`) : null,
      ": ", message.text)));
    this.log.scrollTop = this.log.scrollHeight;
  }
}

/** What happened lately, newest first: broadcasts, timer warnings, help answers, departures. */
export class NoticePanel {
  constructor() {
    this.items = [];
    this.list = h("ol", { class: "notices", testid: "notices" });
    this.element = h("section", { class: "card" }, h("h3", {}, "Notices"), this.list);
  }

  add(text) {
    this.items.unshift({ text, at: Date.now() });
    this.items.length = Math.min(this.items.length, 30);
    fill(this.list, this.items.map((item) => h("li", { testid: "notice" }, h("span", { class: "muted" }, formatClock(item.at), " "), item.text)));
  }
}

/** "Ends in 4:59", "Everyone returns in 0:05", or nothing to count. */
export function timerText(model) {
  const phase = model.breakout.phase;
  if (phase.status === "stopping" && phase.stopsAt) return `Everyone returns in ${formatDuration(phase.stopsAt - model.serverNow())}`;
  if (phase.status === "started" && model.breakout.timer) return `Ends in ${formatDuration(model.breakout.timer.endsAt - model.serverNow())}`;
  if (phase.status === "started") return "No timer";
  return "";
}
