// The participant's view: where you are, the rooms to choose from, help, invitations, chat.
// On a phone it is one column in the order a student needs it: where you are (with its
// buttons, which a banner never moves), banners, the video, chat, then the rest.

import { h, fill } from "./dom.js";
import { Banners, ChatPanel, NoticePanel } from "./panels.js";
import { TileArea } from "./tiles.js";
import { describeHelpResult } from "./state.js";
import { statusWords, roleSuffix } from "./words.js";

export class ParticipantView {
  constructor(root, act) {
    this.act = act;
    this.model = null;
    this.chat = new ChatPanel(act, () => this.model);
    this.notices = new NoticePanel();
    this.banners = new Banners();
    this.tiles = new TileArea();
    this.location = h("p", { class: "location", testid: "my-location" });
    this.actions = h("div", { class: "row" });
    this.helpStatus = h("p", { class: "muted", testid: "help-status" });
    this.invitation = h("div", { class: "invitation", testid: "invitation", hidden: true });
    this.rooms = h("div", { class: "rooms", testid: "room-choices" });
    this.people = h("ul", { class: "chips", testid: "room-people" });
    this.chat.element.classList.add("area-chat");
    // The view's own heading, for the page's outline (h1, then h2, then the cards' h3).
    fill(root, h("h2", { class: "visually-hidden" }, "Your place in the session"), h("div", { class: "participant-grid" },
      h("div", { class: "area-top" },
        h("section", { class: "card" }, h("h3", {}, "You are in"), this.location, this.actions, this.helpStatus),
        this.banners.element, this.invitation,
        this.tiles.element),
      this.chat.element,
      h("div", { class: "area-rest" },
        h("section", { class: "card" }, h("h3", {}, "With you"), this.people),
        h("section", { class: "card" }, h("h3", {}, "Rooms"), this.rooms),
        this.notices.element)));
  }

  notice(notice) { this.notices.add(notice); }

  /** Your own moves say nothing; a move by someone else says where you were moved. */
  move(op, args, origin) {
    this.model.ownMove = true;
    const model = this.model;
    // Its event may come before or after the reply: forget the flag a little later.
    return this.act(op, args, origin).then((done) => { setTimeout(() => { model.ownMove = false; }, done ? 1500 : 0); return done; });
  }

  render(model) {
    this.model = model;
    this.banners.render(model);
    const here = model.location;
    fill(this.location, model.roomName(here));
    const self = model.myRole === "participant";
    fill(this.actions,
      here != null && (!self || model.settings.returnToMainAllowed)
        ? h("button", { type: "button", testid: "return-main", onclick: (event) => this.move("returnToMain", {}, event.currentTarget) }, "Return to the main session") : null,
      here != null
        ? h("button", { type: "button", class: "primary", testid: "request-help", disabled: model.helpPending || null,
          onclick: (event) => this.requestHelp(model, event.currentTarget) }, "Ask for help") : null);
    fill(this.helpStatus, model.helpPending ? "Help requested: waiting for the host…" : model.helpResult ? `Help: ${describeHelpResult(model.helpResult)}` : "");
    this.renderInvitation(model);
    this.renderRooms(model, here, self);
    fill(this.people, model.usersIn(here).map((user) => h("li", { class: `chip role-${model.role(user.id)}`, title: user.name }, `${user.name}${user.id === model.you ? " (you)" : ""}${roleSuffix(model.role(user.id))}`)));
    this.chat.render(model);
    this.tiles.render(model);
  }

  async requestHelp(model, origin) {
    // A "busy" answer arrives before the reply: only a request nobody answered yet is pending.
    model.helpResult = null;
    if (await this.act("requestHelp", {}, origin) && model.helpResult == null) model.helpPending = true;
    this.render(model);
  }

  renderInvitation(model) {
    const room = model.invitation;
    this.invitation.hidden = room == null;
    if (room == null) return;
    fill(this.invitation,
      h("span", {}, "You are invited to ", h("strong", {}, model.roomName(room))),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", testid: "accept-invitation", onclick: (event) => this.move("acceptInvitation", { room }, event.currentTarget) }, "Accept"),
        h("button", { type: "button", testid: "reject-invitation", onclick: (event) => this.act("rejectInvitation", { room }, event.currentTarget) }, "Decline")));
  }

  renderRooms(model, here, self) {
    if (model.rooms.length === 0) {
      fill(this.rooms, h("p", { class: "muted" }, "No breakout rooms yet."));
      return;
    }
    const canChoose = model.status === "started" && (!self || model.settings.selfSelectAllowed);
    const state = { committed: "The rooms are ready but not open yet.", stopped: "The rooms are closed.", stopping: "The rooms are closing." }[model.status];
    fill(this.rooms,
      model.status === "started" && !canChoose ? h("p", { class: "muted", testid: "self-select-off" }, "The host assigns rooms.") : null,
      state ? h("p", { class: "muted", testid: "rooms-state", dataset: { status: model.status } }, state) : null,
      model.rooms.map((room) => {
        const capacity = room.definition?.capacity;
        return h("div", { class: `room${room.id === here ? " here" : ""}`, testid: "room-choice", dataset: { room: room.name } },
          h("div", { class: "row spread" }, h("strong", { class: "name clamp", title: room.name }, room.name),
            h("span", { class: "muted", testid: "room-count" }, capacity ? `${room.occupants.length} / ${capacity}` : `${room.occupants.length} in`),
            canChoose && room.id !== here ? h("button", { type: "button", testid: "join-room", onclick: (event) => this.move("joinRoom", { room: room.id }, event.currentTarget) }, "Join") : null),
          h("p", { class: "muted name clamp" }, room.occupants.map((id) => model.userName(id)).join(", ")));
      }));
    this.rooms.dataset.status = statusWords(model.status);
  }
}
