// The participant's view: where you are, the rooms to choose from, help, invitations, chat.

import { h, fill } from "./dom.js";
import { ChatPanel, NoticePanel } from "./panels.js";
import { describeHelpResult } from "./state.js";

export class ParticipantView {
  constructor(root, act) {
    this.act = act;
    this.chat = new ChatPanel(act);
    this.notices = new NoticePanel();
    this.location = h("p", { class: "location", testid: "my-location" });
    this.actions = h("div", { class: "row" });
    this.helpStatus = h("p", { class: "muted", testid: "help-status" });
    this.invitation = h("div", { class: "invitation", testid: "invitation", hidden: true });
    this.broadcast = h("div", { class: "broadcast", testid: "broadcast-banner", hidden: true });
    this.warning = h("div", { class: "broadcast warning", testid: "timer-warning", hidden: true });
    this.rooms = h("div", { class: "rooms", testid: "room-choices" });
    this.people = h("ul", { class: "chips", testid: "room-people" });
    const main = h("div", { class: "column wide" },
      this.broadcast, this.warning, this.invitation,
      h("section", { class: "card" }, h("h3", {}, "You are in"), this.location, this.actions, this.helpStatus),
      h("section", { class: "card" }, h("h3", {}, "Rooms"), this.rooms),
      h("section", { class: "card" }, h("h3", {}, "With you"), this.people));
    const side = h("div", { class: "column" }, this.chat.element, this.notices.element);
    fill(root, h("div", { class: "grid two" }, main, side));
  }

  notice(notice) {
    // Broadcasts and timer warnings also stay on screen until the next one.
    if (typeof notice === "object") {
      const banner = notice.broadcast ? this.broadcast : this.warning;
      fill(banner, notice.text);
      banner.hidden = false;
      this.notices.add(notice.text);
      return;
    }
    this.notices.add(notice);
  }

  render(model) {
    const here = model.me?.location ?? null;
    fill(this.location, model.roomName(here));
    const self = model.myRole === "participant";
    fill(this.actions,
      here != null && (!self || model.settings.returnToMainAllowed)
        ? h("button", { type: "button", testid: "return-main", onclick: () => this.act("returnToMain") }, "Return to the main session") : null,
      here != null
        ? h("button", { type: "button", class: "primary", testid: "request-help", disabled: model.helpPending || null,
          onclick: () => this.requestHelp(model) }, "Ask for help") : null);
    fill(this.helpStatus, model.helpPending ? "Help requested: waiting for the host…" : model.helpResult ? `Help: ${describeHelpResult(model.helpResult)}` : "");
    this.renderInvitation(model);
    this.renderRooms(model, here, self);
    fill(this.people, model.usersIn(here).map((user) => h("li", { class: `chip role-${model.role(user.id)}` }, user.id === model.you ? `${user.name} (you)` : user.name)));
    this.chat.render(model);
  }

  async requestHelp(model) {
    // A "busy" answer arrives before the reply: only a request nobody answered yet is pending.
    model.helpResult = null;
    if (await this.act("requestHelp") && model.helpResult == null) model.helpPending = true;
    this.render(model);
  }

  renderInvitation(model) {
    const room = model.invitation;
    this.invitation.hidden = room == null;
    if (room == null) return;
    fill(this.invitation,
      h("span", {}, "You are invited to ", h("strong", {}, model.roomName(room))),
      h("button", { type: "button", class: "primary", testid: "accept-invitation", onclick: () => this.act("acceptInvitation", { room }) }, "Accept"),
      h("button", { type: "button", testid: "reject-invitation", onclick: () => this.act("rejectInvitation", { room }) }, "Decline"));
  }

  renderRooms(model, here, self) {
    if (model.rooms.length === 0) {
      fill(this.rooms, h("p", { class: "muted" }, "No breakout rooms yet."));
      return;
    }
    const canChoose = model.status === "started" && (!self || model.settings.selfSelectAllowed);
    fill(this.rooms,
      model.status === "started" && !canChoose ? h("p", { class: "muted", testid: "self-select-off" }, "The host assigns rooms.") : null,
      !model.roomsOpen ? h("p", { class: "muted" }, `Rooms are ${model.status}.`) : null,
      model.rooms.map((room) => h("div", { class: `room${room.id === here ? " here" : ""}`, testid: "room-choice", dataset: { room: room.name } },
        h("div", { class: "row spread" }, h("strong", {}, room.name), h("span", { class: "muted" }, `${room.occupants.length} in`),
          canChoose && room.id !== here ? h("button", { type: "button", testid: "join-room", onclick: () => this.act("joinRoom", { room: room.id }) }, "Join") : null),
        h("p", { class: "muted" }, room.occupants.map((id) => model.userName(id)).join(", ")))));
  }
}
