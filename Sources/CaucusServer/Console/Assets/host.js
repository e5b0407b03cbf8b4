// The host's (and managers') view: people, the plan, the live rooms and every breakout control.

import { h, fill } from "./dom.js";
import { ChatPanel, NoticePanel } from "./panels.js";

const USER_MIME = "application/x-caucus-user";

/** Lets a user chip be dragged onto a room. */
function draggableUser(model, user, extra = {}) {
  return h("li", {
    class: `chip role-${model.role(user.id)}`, draggable: "true", testid: "user-chip", dataset: { userName: user.name },
    ondragstart: (event) => event.dataTransfer.setData(USER_MIME, String(user.id)), ...extra,
  }, user.name);
}

/** Makes `element` accept dropped users, calling `drop(userID)`. */
function dropTarget(element, drop) {
  element.addEventListener("dragover", (event) => {
    if (event.dataTransfer.types.includes(USER_MIME)) { event.preventDefault(); element.classList.add("drop"); }
  });
  element.addEventListener("dragleave", () => element.classList.remove("drop"));
  element.addEventListener("drop", (event) => {
    event.preventDefault();
    element.classList.remove("drop");
    const id = Number(event.dataTransfer.getData(USER_MIME));
    if (id) drop(id);
  });
  return element;
}

/** A select of the session's users and a button: the keyboard way to do what dragging does. */
function userPicker(users, label, testid, choose) {
  const select = h("select", { testid: `${testid}-select`, "aria-label": label },
    h("option", { value: "" }, label), users.map((user) => h("option", { value: user.id }, user.name)));
  const button = h("button", { type: "button", testid: `${testid}-button`, onclick: () => { if (select.value) choose(Number(select.value)); } }, "Assign");
  return h("div", { class: "row picker" }, select, button);
}

export class HostView {
  constructor(root, act, sessionsPanel) {
    this.act = act;
    this.chat = new ChatPanel(act);
    this.notices = new NoticePanel();
    this.people = h("ul", { class: "list", testid: "people" });
    this.plan = h("div", { class: "plan", testid: "plan" });
    this.rooms = h("div", { class: "rooms", testid: "rooms" });
    this.help = h("ul", { class: "list", testid: "help-queue" });
    this.controls = this.buildControls();
    this.planSection = this.buildPlan();
    const sidebar = h("div", { class: "column" },
      sessionsPanel,
      h("section", { class: "card" }, h("h3", {}, "People"), h("p", { class: "muted" }, "Drag a person onto a room, or use the room's picker."), this.people),
      this.buildSettings());
    this.roomsSection = h("section", { class: "card" }, h("h3", {}, "Rooms"), this.rooms);
    this.centre = h("div", { class: "column wide" }, this.planSection, this.roomsSection, this.controls.element);
    const side = h("div", { class: "column" },
      h("section", { class: "card" }, h("h3", {}, "Help requests"), this.help),
      this.buildBroadcast(), this.chat.element, this.notices.element);
    fill(root, h("div", { class: "grid" }, sidebar, this.centre, side));
  }

  buildPlan() {
    const names = h("input", { testid: "plan-names", placeholder: "Red, Blue, Green", autocomplete: "off" });
    const add = h("form", { class: "row", onsubmit: async (event) => {
      event.preventDefault();
      const list = names.value.split(",").map((name) => name.trim()).filter(Boolean);
      if (list.length && await this.act("addToPreList", { names: list })) names.value = "";
    } }, names, h("button", { type: "submit", testid: "plan-add" }, "Add rooms"));
    const buttons = h("div", { class: "row" },
      h("button", { type: "button", class: "primary", testid: "commit", onclick: () => this.act("commit") }, "Commit plan"),
      h("button", { type: "button", testid: "withdraw", onclick: () => this.act("withdraw") }, "Withdraw"),
      h("button", { type: "button", testid: "clear-plan", onclick: () => this.act("clearPreList") }, "Clear plan"));
    return h("section", { class: "card", testid: "plan-section" },
      h("h3", {}, "Plan"), h("p", { class: "muted" }, "Name the rooms, pre-assign people, then commit."), add, this.plan, buttons);
  }

  buildControls() {
    const duration = h("input", { type: "number", min: 0, max: 1440, step: "any", value: "10", testid: "start-minutes", "aria-label": "Duration in minutes" });
    const autoAssign = h("input", { type: "checkbox", testid: "start-auto-assign" });
    const countdown = h("input", { type: "number", min: 0, max: 3600, value: "0", testid: "stop-countdown", "aria-label": "Countdown in seconds" });
    const extend = h("input", { type: "number", min: 1, max: 1440, value: "5", testid: "extend-minutes", "aria-label": "Minutes to add" });
    const count = h("input", { type: "number", min: 1, max: 50, value: "2", testid: "create-count", "aria-label": "Number of rooms" });
    const pause = h("button", { type: "button", testid: "pause-parent", onclick: () => this.act(this.paused ? "resumeParent" : "pauseParent") }, "Pause main session");
    const mute = h("button", { type: "button", testid: "mute-parent", onclick: () => this.act(this.muted ? "unmuteParent" : "muteParent") }, "Mute main session");
    const start = () => {
      const args = { autoAssign: autoAssign.checked };
      const minutes = Number(duration.value);
      if (minutes > 0) args.durationSeconds = Math.round(minutes * 60);
      this.act("start", args);
    };
    const element = h("section", { class: "card controls", testid: "controls" },
      h("h3", {}, "Breakout"),
      h("div", { class: "row" }, h("label", {}, "Duration (min) ", duration), h("label", {}, autoAssign, " auto-assign the rest"),
        h("button", { type: "button", class: "primary", testid: "start", onclick: start }, "Start")),
      h("div", { class: "row" }, h("label", {}, "Countdown (s) ", countdown),
        h("button", { type: "button", class: "danger", testid: "stop", onclick: () => this.act("stop", { countdownSeconds: Number(countdown.value) || 0 }) }, "Stop"),
        h("label", {}, "Add (min) ", extend),
        h("button", { type: "button", testid: "extend", onclick: () => this.act("extendTimer", { seconds: Math.round(Number(extend.value) * 60) }) }, "Extend")),
      h("div", { class: "row" }, pause, mute,
        h("button", { type: "button", testid: "clear-all", onclick: () => this.act("clearAll") }, "Everyone back (clear all)"),
        h("button", { type: "button", class: "danger", testid: "destroy-all", onclick: () => this.act("destroyAll") }, "Destroy all rooms")),
      h("div", { class: "row" }, h("label", {}, "Rooms ", count),
        h("button", { type: "button", testid: "create-rooms", onclick: () => this.act("createRooms", { count: Number(count.value) }) }, "Create rooms now"),
        h("button", { type: "button", testid: "create-and-invite", onclick: () => this.act("createAndInvite", { count: Number(count.value) }) }, "Create and invite everyone"),
        h("button", { type: "button", testid: "auto-assign", onclick: () => this.act("autoAssign") }, "Auto-assign")));
    return { element, pause, mute };
  }

  buildSettings() {
    this.selfSelect = h("input", { type: "checkbox", testid: "setting-self-select", onchange: (event) => this.act("updateSettings", { settings: { selfSelectAllowed: event.target.checked } }) });
    this.returnAllowed = h("input", { type: "checkbox", testid: "setting-return", onchange: (event) => this.act("updateSettings", { settings: { returnToMainAllowed: event.target.checked } }) });
    this.warnAt = h("input", { testid: "setting-warnings", "aria-label": "Warn this many seconds before the end", placeholder: "60", autocomplete: "off" });
    const saveWarnings = (event) => {
      event.preventDefault();
      const seconds = this.warnAt.value.split(",").map((part) => Number(part.trim())).filter((value) => value > 0);
      this.act("updateSettings", { settings: { timerWarningSeconds: seconds } });
    };
    return h("section", { class: "card settings" }, h("h3", {}, "Settings"),
      h("label", {}, this.selfSelect, " participants choose their room"),
      h("label", {}, this.returnAllowed, " participants may return to the main session"),
      h("form", { class: "row", onsubmit: saveWarnings }, h("span", {}, "Timer warnings (s before the end)"), this.warnAt,
        h("button", { type: "submit", testid: "setting-warnings-save" }, "Save")));
  }

  buildBroadcast() {
    const text = h("input", { testid: "broadcast-text", placeholder: "Five minutes left", maxlength: 4000, autocomplete: "off" });
    return h("section", { class: "card" }, h("h3", {}, "Broadcast to every room"),
      h("form", { class: "row", onsubmit: async (event) => {
        event.preventDefault();
        if (text.value.trim() && await this.act("broadcast", { text: text.value })) text.value = "";
      } }, text, h("button", { type: "submit", testid: "broadcast-send" }, "Broadcast")));
  }

  notice(notice) { this.notices.add(typeof notice === "object" ? notice.text : notice); }

  render(model) {
    this.paused = model.breakout.parent.paused;
    this.muted = model.breakout.parent.audioMuted || model.breakout.parent.videoMuted;
    fill(this.controls.pause, this.paused ? "Resume main session" : "Pause main session");
    fill(this.controls.mute, this.muted ? "Unmute main session" : "Mute main session");
    this.selfSelect.checked = model.settings.selfSelectAllowed;
    this.returnAllowed.checked = model.settings.returnToMainAllowed;
    this.selfSelect.disabled = this.returnAllowed.disabled = model.myRole !== "host";
    if (document.activeElement !== this.warnAt) this.warnAt.value = model.settings.timerWarningSeconds.join(", ");
    this.planSection.hidden = model.myRole !== "host";
    // While rooms are open the live rooms and their controls matter most; the plan waits below.
    if (model.roomsOpen) this.centre.append(this.planSection);
    else this.centre.prepend(this.planSection);
    this.renderPeople(model);
    this.renderPlan(model);
    this.renderRooms(model);
    this.renderHelp(model);
    this.chat.render(model);
  }

  renderPeople(model) {
    const roomTargets = model.rooms.map((room) => h("option", { value: room.id }, room.name));
    fill(this.people, [...model.users.values()].map((user) => {
      const location = user.location ?? null;
      const move = h("select", { testid: "user-move-select", "aria-label": `Move ${user.name}`, onchange: (event) => {
        const target = event.target.value;
        if (target === "main") this.act("returnUser", { user: user.id });
        else if (target) this.act("assign", { users: [user.id], room: Number(target) });
      } }, h("option", { value: "" }, "Move to…"), h("option", { value: "main" }, "Main session"), roomTargets.map((option) => option.cloneNode(true)));
      return h("li", { class: "person", testid: "user-row", dataset: { userName: user.name } },
        draggableUser(model, user, { class: `chip role-${model.role(user.id)}` }),
        h("span", { class: "muted" }, model.role(user.id)),
        h("span", { testid: "user-location" }, model.roomName(location)),
        user.presence?.connected === false ? h("span", { class: "badge warn" }, "reconnecting") : null,
        model.rooms.length ? move : null,
        location != null && user.id !== model.you
          ? h("button", { type: "button", class: "quiet", testid: "user-send-back", onclick: () => this.act("returnUser", { user: user.id }) }, "Send back")
          : null,
        model.myRole === "host" && user.id !== model.you ? this.managerToggle(model, user) : null);
    }));
  }

  /** The host makes and revokes managers, who then get this view too. */
  managerToggle(model, user) {
    const isManager = model.role(user.id) === "manager";
    return h("button", {
      type: "button", class: "quiet", testid: "user-manager",
      onclick: () => this.act(isManager ? "revokeManager" : "makeManager", { user: user.id }),
    }, isManager ? "Revoke manager" : "Make manager");
  }

  renderPlan(model) {
    const users = [...model.users.values()].filter((user) => user.id !== model.you);
    fill(this.plan, model.preList.length === 0 ? h("p", { class: "muted" }, "No rooms planned yet.") : model.preList.map((planned) =>
      dropTarget(h("div", { class: "planned", testid: "plan-room", dataset: { room: planned.name } },
        h("div", { class: "row spread" }, h("strong", {}, planned.name),
          h("button", { type: "button", class: "quiet", testid: "plan-remove", onclick: () => this.act("removeFromPreList", { names: [planned.name] }) }, "Remove")),
        h("ul", { class: "chips", testid: "plan-assigned" }, planned.assigned.map((id) => h("li", { class: "chip" }, model.userName(id)))),
        userPicker(users, "Pre-assign…", "plan-assign", (id) => this.act("preAssign", { users: [id], name: planned.name }))),
      (id) => this.act("preAssign", { users: [id], name: planned.name }))));
  }

  renderRooms(model) {
    if (model.rooms.length === 0) {
      fill(this.rooms, h("p", { class: "muted" }, "No rooms yet: commit a plan, or create rooms."));
      return;
    }
    const open = model.roomsOpen;
    fill(this.rooms, model.rooms.map((room) => {
      const here = model.me?.location === room.id;
      return dropTarget(h("div", { class: `room${here ? " here" : ""}`, testid: "room-card", dataset: { room: room.name } },
        h("div", { class: "row spread" }, h("strong", {}, room.name),
          open && !here ? h("button", { type: "button", class: "quiet", testid: "room-enter", onclick: () => this.act("joinRoom", { room: room.id }) }, "Enter") : null,
          here ? h("button", { type: "button", class: "quiet", testid: "room-leave", onclick: () => this.act("returnToMain") }, "Back to main") : null),
        h("ul", { class: "chips", testid: "room-occupants" }, room.occupants.map((id) => draggableUser(model, model.users.get(id) ?? { id, name: model.userName(id) }))),
        !open && room.assigned.length ? h("p", { class: "muted", testid: "room-assigned" }, "Planned: ", room.assigned.map((id) => model.userName(id)).join(", ")) : null,
        userPicker([...model.users.values()], open ? "Move here…" : "Assign…", "room-assign", (id) => this.act("assign", { users: [id], room: room.id }))),
      (id) => this.act("assign", { users: [id], room: room.id }));
    }));
  }

  renderHelp(model) {
    fill(this.help, model.helpRequests.length === 0 ? h("li", { class: "muted" }, "Nobody is asking for help.") : model.helpRequests.map((request) =>
      h("li", { class: "help", testid: "help-request", dataset: { requester: request.requesterName } },
        h("span", {}, h("strong", {}, request.requesterName), ` in ${request.roomName}`),
        h("button", { type: "button", class: "primary", testid: "help-join", onclick: () => this.act("answerHelp", { request: request.id, answer: "join" }) }, "Join"),
        h("button", { type: "button", class: "quiet", testid: "help-ignore", onclick: () => this.act("answerHelp", { request: request.id, answer: "ignore" }) }, "Ignore"))));
  }
}
