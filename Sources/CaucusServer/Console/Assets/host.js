// The host's (and managers') view: the breakout controls first (always in the same place,
// whatever the status; banners come below them, so a banner never moves a button), then the plan and the rooms; people on one side, help, broadcast
// and chat on the other. On a phone, one column: controls, plan and rooms, help and chat, people.

import { h, fill } from "./dom.js";
import { askNear, showErrorNear, clearErrorNear, focusCard } from "./feedback.js";
import { Banners, ChatPanel, NoticePanel, tooLong } from "./panels.js";
import { TileArea } from "./tiles.js";
import { Overview } from "./hostoverview.js";
import { PlanCard, RoomsCard, draggableUser } from "./hostrooms.js";
import { PersonalLinks } from "./personallinks.js";
import { HostLinkPanel } from "./hostlink.js";
import { personActions } from "./hostpeople.js";
import { RecordingCard } from "./hostrecording.js";

const NEXT_STEP = {
  none: "Make a plan below (or create rooms at once), then start.",
  withdrawn: "Make a plan below (or create rooms at once), then start.",
  committed: "The rooms are ready: press Start when everyone is here.",
  started: "The rooms are open.",
  stopping: "The rooms are closing.",
  stopped: "The rooms are closed. Start them again, or change the plan.",
};

export class HostView {
  constructor(root, act, { links, replaceHostLink }) {
    // Where this page put people: a person the teacher moved herself did not switch rooms.
    this.act = (op, args, origin) => {
      if (op === "assign" && this.model) for (const user of args.users) this.model.placedByUs.set(user, args.room);
      if (op === "returnUser" && this.model) this.model.placedByUs.delete(args.user);
      return act(op, args, origin);
    };
    this.model = null;
    this.selected = new Set();
    this.chat = new ChatPanel(act, () => this.model);
    this.notices = new NoticePanel();
    this.banners = new Banners();
    this.people = h("ul", { class: "list", testid: "people" });
    this.unplaced = h("p", { class: "name", testid: "unplaced" });
    this.bulk = h("div", { class: "row", testid: "bulk" });
    this.help = h("ul", { class: "list", testid: "help-queue" });
    this.controls = this.buildControls();
    this.plan = new PlanCard(this);
    this.rooms = new RoomsCard(this);
    this.recording = new RecordingCard(this.act);
    this.links = links;
    this.tiles = new TileArea();
    this.overview = new Overview();
    this.personal = new PersonalLinks();
    this.inviteLink = h("input", { readonly: true, testid: "invite-link", "aria-label": "Link for participants", onfocus: (event) => event.target.select() });
    const peopleCard = h("section", { class: "card area-people" }, h("h3", {}, "People"),
      h("div", { class: "unplaced-box" }, h("strong", {}, "Not in a room yet: "), this.unplaced),
      h("p", { class: "muted" }, "Tick people to move several at once, or drag a person onto a room."),
      this.bulk, this.people);
    this.hostLinkPanel = new HostLinkPanel(replaceHostLink);
    // A link on this machine's own loopback address opens nowhere else: say so, and how to fix it.
    this.loopbackNote = h("p", { class: "muted small", testid: "loopback-link-note", hidden: true },
      "This link names this computer's own address: only this computer can open it. Open the console at the address others reach, or start the server with --public-url.");
    const inviteCard = h("section", { class: "card area-invite" }, h("h3", {}, "Invite people"),
      h("p", { class: "muted small" }, "Send this link to participants: it lets them join, never host."),
      h("div", { class: "row" }, this.inviteLink,
        h("button", { type: "button", testid: "invite-copy", onclick: (event) => this.copyLink(event.currentTarget) }, "Copy link")),
      this.loopbackNote,
      this.personal.element, this.hostLinkPanel.element);
    // The view's own heading, for the page's outline (h1, then h2, then the cards' h3).
    fill(root, h("h2", { class: "visually-hidden" }, "Running the session"), h("div", { class: "host-grid" },
      h("div", { class: "area-main" }, this.controls.element, this.banners.element, this.tiles.element, this.overview.element, this.plan.element, this.rooms.element),
      h("div", { class: "area-side" },
        h("section", { class: "card" }, h("h3", {}, "Help requests"), this.help),
        this.recording.element, this.buildBroadcast(), this.chat.element),
      h("div", { class: "area-left" }, peopleCard, inviteCard, this.buildSettings(), this.notices.element)));
  }

  async copyLink(button) {
    this.inviteLink.select();
    try {
      await navigator.clipboard.writeText(this.inviteLink.value);
      fill(button, "Copied");
    } catch {
      // Without clipboard access (plain http), the link is selected for the person to copy.
      fill(button, "Selected: copy it");
    }
    setTimeout(() => fill(button, "Copy link"), 2000);
  }

  /** Your own moves say nothing; a move by someone else says where you were moved. */
  move(op, args, origin) {
    this.model.ownMove = true;
    const model = this.model;
    // Its event may come before or after the reply: forget the flag a little later.
    return this.act(op, args, origin).then((done) => { setTimeout(() => { model.ownMove = false; }, done ? 1500 : 0); return done; });
  }

  buildControls() {
    const number = (testid, value, min, max, label) => h("input", { type: "number", min, max, step: "any", value, testid, "aria-label": label });
    const duration = number("start-minutes", "10", 0, 1440, "Minutes");
    const autoAssign = h("input", { type: "checkbox", testid: "start-auto-assign" });
    const countdown = number("stop-countdown", "0", 0, 3600, "Countdown in seconds");
    const extend = number("extend-minutes", "5", 1, 1440, "Minutes to add");
    const count = number("create-count", "2", 1, 50, "Number of rooms");
    const force = h("input", { type: "checkbox", testid: "create-force" });
    const capacity = h("input", { type: "number", min: 2, max: 1000, placeholder: "any", testid: "create-capacity", "aria-label": "People per room (blank: no limit)" });
    const definition = () => (Number(capacity.value) > 0 ? { capacity: Math.round(Number(capacity.value)) } : undefined);
    const hint = h("p", { class: "muted", testid: "next-step" });
    const button = (testid, text, run, className) => h("button", { type: "button", testid, class: className, onclick: (event) => run(event.currentTarget) }, text);
    const pause = button("pause-parent", "Pause main session", (origin) => this.act(this.paused ? "resumeParent" : "pauseParent", {}, origin));
    const mute = button("mute-parent", "Mute main session", (origin) => this.act(this.muted ? "unmuteParent" : "muteParent", {}, origin));
    const start = (origin) => {
      const args = { autoAssign: autoAssign.checked };
      const minutes = Number(duration.value);
      if (minutes > 0) args.durationSeconds = Math.round(minutes * 60);
      this.act("start", args, origin);
    };
    const startButton = button("start", "Start", start, "primary");
    const extendButton = button("extend", "Extend", (origin) => this.act("extendTimer", { seconds: Math.round(Number(extend.value) * 60) }, origin));
    // Stopping, extending, pausing and removing rooms apply once there are rooms.
    const roomRows = [
      h("div", { class: "row", testid: "controls-running" }, h("label", {}, "Countdown (s) ", countdown),
        button("stop", "Stop", (origin) => this.act("stop", { countdownSeconds: Number(countdown.value) || 0 }, origin), "danger"),
        h("label", {}, "Add (min) ", extend), extendButton),
      h("div", { class: "row", testid: "controls-rooms" }, pause, mute,
        button("clear-all", "Everyone back", (origin) => this.act("clearAll", {}, origin)),
        button("destroy-all", "Remove all rooms", (origin) => this.destroyAll(origin), "danger")),
    ];
    const element = h("section", { class: "card controls", testid: "controls" },
      h("h3", {}, "Breakout"), hint,
      h("div", { class: "row" }, h("label", {}, "Minutes ", duration), h("label", {}, autoAssign, " put the others in rooms too"),
        startButton),
      roomRows,
      h("details", { class: "more", testid: "quick-rooms" }, h("summary", {}, "Quick rooms, without a plan"),
        h("div", { class: "row" }, h("label", {}, "Rooms ", count), h("label", {}, "People per room ", capacity)),
        h("div", { class: "row" },
          button("create-rooms", "Create rooms", (origin) => this.createRooms(origin, Number(count.value), false, false, definition())),
          button("create-and-invite", "Create rooms and invite everyone", (origin) => this.createRooms(origin, Number(count.value), true, force.checked, definition())),
          h("label", {}, force, " move them without asking"),
          button("auto-assign", "Put everyone not in a room into one", (origin) => this.act("autoAssign", {}, origin)))));
    return { element, pause, mute, hint, start: startButton, extend: extendButton, roomRows };
  }

  async destroyAll(origin) {
    const answer = await askNear(origin, `Remove all ${this.model.rooms.length} rooms? Everyone comes back to the main session, and the rooms are gone.`,
      [{ value: "yes", label: "Remove all rooms", testid: "confirm-destroy", class: "danger" }]);
    if (answer) this.act("destroyAll", {}, origin);
  }

  /** New rooms are numbered after the ones there are: say so, and offer to replace them. */
  async createRooms(origin, count, invite, forceJoin, definition) {
    const op = invite ? "createAndInvite" : "createRooms";
    const args = invite ? { count, forceJoin } : { count };
    if (definition) args.definition = definition;
    const existing = this.model.rooms.length;
    if (existing === 0) return this.act(op, args, origin);
    const first = existing + 1;
    const answer = await askNear(origin,
      `There are already ${existing} rooms. Replace them with ${count} new rooms, or add ${count} more (Room ${first}${count > 1 ? ` to Room ${existing + count}` : ""})?`,
      [{ value: "replace", label: `Replace with ${count} new rooms`, testid: "confirm-replace", class: "primary" },
        { value: "add", label: `Add ${count} more`, testid: "confirm-add" }]);
    if (answer === "replace") {
      if (await this.act("destroyAll", {}, origin)) this.act(op, args, origin);
    } else if (answer === "add") {
      this.act(op, args, origin);
    }
  }

  buildSettings() {
    this.selfSelect = h("input", { type: "checkbox", testid: "setting-self-select", onchange: (event) => this.act("updateSettings", { settings: { selfSelectAllowed: event.target.checked } }, event.target) });
    this.returnAllowed = h("input", { type: "checkbox", testid: "setting-return", onchange: (event) => this.act("updateSettings", { settings: { returnToMainAllowed: event.target.checked } }, event.target) });
    this.managersRecord = h("input", { type: "checkbox", testid: "setting-managers-record", onchange: (event) => this.act("updateSettings", { settings: { managersMayRecord: event.target.checked } }, event.target) });
    // What the host types stays until saved: an update from the session (someone joins) must
    // not put the old value back between typing and Save, whatever has the focus by then.
    // Emptying the field counts (a cleared field fires change, not input).
    this.warnEdited = false;
    this.warnAt = h("input", { testid: "setting-warnings", "aria-label": "Warn this many seconds before the end", placeholder: "60", autocomplete: "off",
      oninput: () => { this.warnEdited = true; }, onchange: () => { this.warnEdited = true; } });
    const save = h("button", { type: "submit", testid: "setting-warnings-save" }, "Save");
    const saveWarnings = async (event) => {
      event.preventDefault();
      const seconds = this.warnAt.value.split(",").map((part) => Number(part.trim())).filter((value) => value > 0);
      // A refused value stays in the field beside its error, to be corrected.
      if (await this.act("updateSettings", { settings: { timerWarningSeconds: seconds } }, save)) {
        this.warnEdited = false;
        if (this.model) this.warnAt.value = this.model.settings.timerWarningSeconds.join(", ");
      }
    };
    this.settings = h("section", { class: "card settings" }, h("h3", {}, "Settings"),
      h("label", { class: "row" }, this.selfSelect, " participants may switch rooms themselves (their switches show in the overview)"),
      h("label", { class: "row" }, this.returnAllowed, " participants may return to the main session"),
      h("label", { class: "row" }, this.managersRecord, " managers may start and stop recording"),
      h("form", { class: "row", onsubmit: saveWarnings }, h("span", {}, "Timer warnings (seconds before the end)"), this.warnAt, save));
    return this.settings;
  }

  buildBroadcast() {
    const text = h("input", { testid: "broadcast-text", placeholder: "Five minutes left", autocomplete: "off", "aria-label": "Message to every room" });
    const send = h("button", { type: "submit", testid: "broadcast-send" }, "Send to all");
    // Broadcast voice: this user's microphone reaches every room until stopped.
    this.voice = h("button", { type: "button", testid: "voice-broadcast", onclick: (event) =>
      this.act(this.model?.voiceBroadcaster === this.model?.you ? "stopVoiceBroadcast" : "startVoiceBroadcast", {}, event.currentTarget) },
    "Speak to every room");
    this.voice.setAttribute("aria-describedby", "voice-broadcast-hint");
    return h("section", { class: "card" }, h("h3", {}, "Message to every room"),
      h("div", { class: "row" }, this.voice,
        h("span", { class: "muted small", id: "voice-broadcast-hint", testid: "voice-broadcast-hint" }, "Uses your microphone: every room hears you until you stop.")),
      h("form", { class: "row", onsubmit: async (event) => {
        event.preventDefault();
        if (!text.value.trim()) { showErrorNear(send, "Type a message first."); return; }
        const problem = tooLong(text.value, this.model?.limits?.maxChatLength ?? 4000);
        if (problem) { showErrorNear(send, problem); return; }
        clearErrorNear(send);
        if (await this.act("broadcast", { text: text.value }, send)) text.value = "";
      } }, text, send));
  }

  notice(notice) { this.notices.add(notice); }

  render(model) {
    this.model = model;
    this.banners.render(model);
    this.paused = model.breakout.parent.paused;
    this.muted = model.breakout.parent.audioMuted || model.breakout.parent.videoMuted;
    fill(this.controls.pause, this.paused ? "Resume main session" : "Pause main session");
    fill(this.controls.mute, this.muted ? "Unmute main session" : "Mute main session");
    fill(this.voice, model.voiceBroadcaster === model.you ? "Stop speaking to every room" : "Speak to every room");
    fill(this.controls.hint, NEXT_STEP[model.status] ?? "");
    // Start stays where it is (the page must not jump) and still answers in words if pressed,
    // but it is the step to take only when there are rooms ready to open.
    const startable = model.status === "committed" || (model.status === "stopped" && model.rooms.length > 0);
    this.controls.start.classList.toggle("primary", startable);
    this.controls.start.dataset.ready = String(startable);
    const roomsExist = model.rooms.length > 0;
    for (const row of this.controls.roomRows) row.hidden = !roomsExist;
    // Extend applies to a running timer only (not during the closing countdown): a refusal
    // said while there was none goes once the button is off.
    const timing = model.status === "started" && model.breakout.timer != null;
    this.controls.extend.disabled = !timing;
    this.controls.extend.title = timing ? "" : "No timer is running.";
    if (!timing) clearErrorNear(this.controls.extend);
    // Rooms just opened: their overview comes into view (at 1280×800 it starts at the bottom edge).
    if (model.status === "started" && this.lastStatus != null && this.lastStatus !== "started") this.showOverview();
    this.lastStatus = model.status;
    this.selfSelect.checked = model.settings.selfSelectAllowed;
    this.returnAllowed.checked = model.settings.returnToMainAllowed;
    this.managersRecord.checked = model.settings.managersMayRecord === true;
    this.recording.render(model);
    this.settings.hidden = model.myRole !== "host";
    if (!this.warnEdited) this.warnAt.value = model.settings.timerWarningSeconds.join(", ");
    const links = this.links();
    this.inviteLink.value = links.participant ?? "";
    this.loopbackNote.hidden = !onLoopback(links.participant);
    this.hostLinkPanel.render(model, links.host);
    this.personal.render(model, links.hostInvite, links.class);
    this.renderPeople(model);
    this.plan.render(model);
    this.rooms.render(model);
    this.renderHelp(model);
    this.chat.render(model);
    this.tiles.render(model);
    this.overview.render(model, this.tiles.media);
  }

  showOverview() {
    requestAnimationFrame(() => {
      const box = this.overview.element.getBoundingClientRect();
      if (box.top <= window.innerHeight * 0.6) return;
      // Focus goes with the page: Start, left focused, would be scrolled under the top bar.
      if (this.controls.element.contains(document.activeElement)) focusCard(this.overview.element);
      this.overview.element.scrollIntoView({ block: "start" });
    });
  }

  /** Speaking changed: only the tiles and the overview say so. */
  renderMedia(model) { this.overview.render(model, this.tiles.media); }

  renderPeople(model) {
    for (const id of this.selected) if (!model.users.has(id)) this.selected.delete(id);
    const unplaced = model.unplaced;
    fill(this.unplaced, unplaced.length ? unplaced.map((user) => user.name).join(", ") : "nobody");
    fill(this.people, [...model.users.values()].map((user) => this.personRow(model, user)));
    this.renderBulk(model);
  }

  personRow(model, user) {
    const location = user.location ?? null;
    const roomTargets = model.rooms.map((room) => h("option", { value: room.id }, room.name));
    const move = h("select", { testid: "user-move-select", "aria-label": `Move ${user.name}`, onchange: (event) => {
      const target = event.target.value;
      if (target === "main") this.act("returnUser", { user: user.id }, event.target);
      else if (target) this.act("assign", { users: [user.id], room: Number(target) }, event.target);
    } }, h("option", { value: "" }, "Move to…"), h("option", { value: "main" }, "Main session"), roomTargets);
    const tick = h("input", { type: "checkbox", testid: "user-select", "aria-label": `Select ${user.name}`, checked: this.selected.has(user.id) || null,
      onchange: (event) => { if (event.target.checked) this.selected.add(user.id); else this.selected.delete(user.id); this.renderBulk(model); } });
    return h("li", { class: "person", testid: "user-row", dataset: { userName: user.name } },
      user.id === model.you ? null : tick,
      h("ul", { class: "chips inline" }, draggableUser(model, user)),
      h("span", { class: "muted" }, model.role(user.id)),
      h("span", { class: "clamp", testid: "user-location", title: model.roomName(location) }, model.roomName(location)),
      user.presence?.connected === false ? h("span", { class: "badge warn" }, "reconnecting") : null,
      model.rooms.length && user.id !== model.you ? move : null,
      location != null && user.id !== model.you
        ? h("button", { type: "button", class: "quiet", testid: "user-send-back", onclick: (event) => this.act("returnUser", { user: user.id }, event.currentTarget) }, "Send back")
        : null,
      model.myRole === "host" && user.id !== model.you ? this.managerToggle(model, user) : null,
      personActions(this.act, model, user));
  }

  /** Several people at once: into a planned room before the plan is confirmed, else into a room. */
  renderBulk(model) {
    const planning = model.rooms.length === 0 && model.myRole === "host";
    const targets = planning ? model.preList.map((planned) => ({ value: planned.name, name: planned.name })) : model.rooms.map((room) => ({ value: String(room.id), name: room.name }));
    if (targets.length === 0) { fill(this.bulk); return; }
    const select = h("select", { testid: "bulk-room-select", "aria-label": "Room for the people ticked" },
      h("option", { value: "" }, "Room…"), targets.map((target) => h("option", { value: target.value }, target.name)));
    const go = h("button", { type: "button", testid: "bulk-assign", onclick: async (event) => {
      const users = [...this.selected];
      if (users.length === 0) { showErrorNear(event.currentTarget, "Tick the people to move first."); return; }
      if (!select.value) { showErrorNear(event.currentTarget, "Choose a room first."); return; }
      const done = planning
        ? await this.act("preAssign", { users, name: select.value }, event.currentTarget)
        : await this.act("assign", { users, room: Number(select.value) }, event.currentTarget);
      if (done) { this.selected.clear(); this.render(model); }
    } }, `Move ${this.selected.size || ""} ticked`.replace("  ", " "));
    fill(this.bulk, select, go);
  }

  /** The host makes and revokes managers, who then get this view too. */
  managerToggle(model, user) {
    const isManager = model.role(user.id) === "manager";
    return h("button", {
      type: "button", class: "quiet", testid: "user-manager",
      onclick: (event) => this.act(isManager ? "revokeManager" : "makeManager", { user: user.id }, event.currentTarget),
    }, isManager ? "Revoke manager" : "Make manager");
  }

  renderHelp(model) {
    fill(this.help, model.helpRequests.length === 0 ? h("li", { class: "muted" }, "Nobody is asking for help.") : model.helpRequests.map((request) =>
      h("li", { class: "help", testid: "help-request", dataset: { requester: request.requesterName } },
        h("span", { class: "name" }, h("strong", {}, request.requesterName), ` in ${request.roomName}`),
        h("button", { type: "button", class: "primary", testid: "help-join", onclick: (event) => this.move("answerHelp", { request: request.id, answer: "join" }, event.currentTarget) }, "Join"),
        h("button", { type: "button", class: "quiet", testid: "help-ignore", onclick: (event) => this.act("answerHelp", { request: request.id, answer: "ignore" }, event.currentTarget) }, "Ignore"))));
  }
}

/** Whether a link names a loopback address (127.0.0.0/8, ::1, localhost). */
function onLoopback(link) {
  if (!link) return false;
  const host = new URL(link).hostname;
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}
