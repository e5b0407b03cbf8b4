// The host view's plan and room cards, and the drag and drop between people and rooms.

import { h, fill } from "./dom.js";
import { roleSuffix } from "./words.js";
import { showErrorNear } from "./feedback.js";
import { RenameControls } from "./rename.js";
import { roomRecording } from "./hostrecording.js";

const USER_MIME = "application/x-caucus-user";
/** Past this many rooms the cards become one line each, so the page stays short. */
export const COMPACT_AFTER = 12;

/** Lets a user chip be dragged onto a room. */
export function draggableUser(model, user) {
  return h("li", {
    class: `chip role-${model.role(user.id)}`, draggable: "true", testid: "user-chip", dataset: { userName: user.name }, title: user.name,
    ondragstart: (event) => event.dataTransfer.setData(USER_MIME, String(user.id)),
  }, `${user.name}${roleSuffix(model.role(user.id))}`);
}

/** Makes `element` accept dropped users, calling `drop(userID)`. */
export function dropTarget(element, drop) {
  element.addEventListener("dragover", (event) => {
    if (event.dataTransfer.types.includes(USER_MIME)) { event.preventDefault(); element.classList.add("drop"); }
  });
  element.addEventListener("dragleave", () => element.classList.remove("drop"));
  element.addEventListener("drop", (event) => {
    event.preventDefault();
    element.classList.remove("drop");
    const id = Number(event.dataTransfer.getData(USER_MIME));
    if (id) drop(id, element);
  });
  return element;
}

/** A select of people and buttons: the keyboard way to do what dragging does. */
function userPicker(users, label, testid, buttons) {
  const select = h("select", { testid: `${testid}-select`, "aria-label": label },
    h("option", { value: "" }, label), users.map((user) => h("option", { value: user.id }, user.name)));
  return h("div", { class: "row picker" }, select, buttons.map(({ text, testid: id, run, extra }) => [
    h("button", { type: "button", testid: id, onclick: (event) => {
      if (select.value) run(Number(select.value), event.currentTarget);
      else showErrorNear(event.currentTarget, "Choose a person first.");
    } }, text), extra ?? null]));
}

/** The plan (host only): room names, pre-assignments, confirm. Editable until confirmed. */
export class PlanCard {
  constructor(view) {
    this.view = view;
    this.editing = false;
    this.renames = new RenameControls();
    this.list = h("div", { class: "plan", testid: "plan" });
    const names = h("input", { testid: "plan-names", placeholder: "Red, Blue, Green", autocomplete: "off", "aria-label": "Room names" });
    const addButton = h("button", { type: "submit", testid: "plan-add" }, "Add rooms");
    this.editor = h("div", { testid: "plan-editor" },
      h("p", { class: "muted" }, "Name the rooms (separated by commas), put people in them, then confirm the plan."),
      h("form", { class: "row", onsubmit: async (event) => {
        event.preventDefault();
        const list = names.value.split(",").map((name) => name.trim()).filter(Boolean);
        if (list.length === 0) { showErrorNear(addButton, "Type at least one room name, for example: Red, Blue."); return; }
        if (await view.act("addToPreList", { names: list }, addButton)) names.value = "";
      } }, names, addButton),
      this.list,
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", testid: "commit", onclick: async (event) => {
          if (await view.act("commit", {}, event.currentTarget)) this.editing = false;
        } }, "Confirm the plan"),
        h("button", { type: "button", testid: "clear-plan", onclick: (event) => view.act("clearPreList", {}, event.currentTarget) }, "Clear the plan")));
    this.summary = h("div", { testid: "plan-summary" });
    this.element = h("section", { class: "card", testid: "plan-section" }, h("h3", {}, "Plan"), this.summary, this.editor);
  }

  render(model) {
    this.element.hidden = model.myRole !== "host";
    const confirmed = model.rooms.length > 0 && ["committed", "stopped", "started", "stopping"].includes(model.status);
    const editable = !confirmed || (this.editing && !model.roomsOpen);
    this.editor.hidden = !editable;
    fill(this.summary, confirmed ? h("div", { class: "row" },
      h("span", { class: "muted" }, model.preList.length === 0 ? "The rooms below were made without a plan."
        : model.roomsOpen ? "The plan is in use: its rooms are open below." : "The plan is confirmed: its rooms are below."),
      // Shown while the rooms are open too (unusable then), so that starting moves nothing.
      this.editing ? null : h("button", { type: "button", testid: "plan-edit", disabled: model.roomsOpen || null, title: model.roomsOpen ? "Stop the rooms first" : null,
        onclick: () => { this.editing = true; this.view.render(model); } }, "Change the plan"),
      h("button", { type: "button", testid: "withdraw", disabled: model.roomsOpen || null, title: model.roomsOpen ? "Stop the rooms first" : null,
        onclick: (event) => this.view.act("withdraw", {}, event.currentTarget) }, "Remove these rooms")) : null);
    if (!editable) return;
    const users = [...model.users.values()].filter((user) => user.id !== model.you);
    this.renames.keep(new Set(model.preList.map((planned) => planned.name)));
    const rerender = () => this.view.render(model);
    fill(this.list, model.preList.length === 0 ? h("p", { class: "muted" }, "No rooms planned yet.") : model.preList.map((planned) =>
      dropTarget(h("div", { class: "planned", testid: "plan-room", dataset: { room: planned.name } },
        h("div", { class: "row spread" },
          this.renames.render(planned.name, planned.name, "plan",
            (newName, origin) => this.view.act("renamePlannedRoom", { name: planned.name, newName }, origin), rerender),
          h("button", { type: "button", class: "quiet", testid: "plan-remove", onclick: (event) => this.view.act("removeFromPreList", { names: [planned.name] }, event.currentTarget) }, "Remove")),
        h("ul", { class: "chips", testid: "plan-assigned" }, planned.assigned.map((id) => h("li", { class: "chip removable", testid: "plan-person", dataset: { userName: model.userName(id) } },
          h("span", { class: "chip-name", title: model.userName(id) }, model.userName(id)),
          h("button", { type: "button", class: "chip-remove", testid: "plan-unassign", title: `Take ${model.userName(id)} out of the plan`, "aria-label": `Take ${model.userName(id)} out of the plan`,
            onclick: (event) => this.view.act("unassign", { users: [id] }, event.currentTarget) }, "×")))),
        userPicker(users, "Put in this room…", "plan-assign", [{ text: "Add", testid: "plan-assign-button", run: (id, origin) => this.view.act("preAssign", { users: [id], name: planned.name }, origin) }])),
      (id, target) => this.view.act("preAssign", { users: [id], name: planned.name }, target))));
  }
}

/** The committed rooms: who is in each (or planned, or invited), and moving people in. */
export class RoomsCard {
  constructor(view) {
    this.view = view;
    this.renames = new RenameControls();
    this.grid = h("div", { class: "rooms", testid: "rooms" });
    this.heading = h("h3", {}, "Rooms");
    this.element = h("section", { class: "card", testid: "rooms-section" }, this.heading, this.grid);
  }

  render(model) {
    const rooms = model.rooms;
    fill(this.heading, rooms.length ? `Rooms (${rooms.length})` : "Rooms");
    if (rooms.length === 0) {
      fill(this.grid, h("p", { class: "muted" }, "No rooms yet: make a plan, or create rooms with the buttons above."));
      return;
    }
    this.renames.keep(new Set(rooms.map((room) => room.id)));
    const compact = rooms.length > COMPACT_AFTER;
    this.grid.classList.toggle("compact", compact);
    fill(this.grid, rooms.map((room) => this.card(model, room, compact)));
  }

  card(model, room, compact) {
    const { act } = this.view;
    const open = model.roomsOpen;
    const here = model.location === room.id;
    const listening = model.listeners.some((listener) => listener.user === model.you && listener.room === room.id);
    const capacity = room.definition?.capacity;
    const invited = model.invitations[room.id] ?? [];
    const people = [...model.users.values()].filter((user) => user.id !== model.you && (user.location ?? null) !== room.id);
    const count = h("span", { class: "count", testid: "room-count" }, capacity ? `${room.occupants.length} / ${capacity}` : `${room.occupants.length} in`);
    const force = h("input", { type: "checkbox", testid: "room-invite-force" });
    const actions = [
      open && !here ? h("button", { type: "button", class: "quiet", testid: "room-enter", onclick: (event) => this.view.move("joinRoom", { room: room.id }, event.currentTarget) }, "Enter") : null,
      here ? h("button", { type: "button", class: "quiet", testid: "room-leave", onclick: (event) => this.view.move("returnToMain", {}, event.currentTarget) }, "Back to main") : null,
      // Hear and see the room without entering it; the room is told.
      open && !here ? h("button", { type: "button", class: "quiet", testid: "room-listen",
        onclick: (event) => act(listening ? "stopListening" : "listenIn", listening ? {} : { room: room.id }, event.currentTarget) },
      listening ? "Stop listening" : "Listen in") : null,
      ...roomRecording(model, room, act),
    ];
    const pickerButtons = [{ text: open ? "Move here" : "Assign", testid: "room-assign-button", run: (id, origin) => act("assign", { users: [id], room: room.id }, origin) }];
    if (open) {
      pickerButtons.push({
        text: "Invite", testid: "room-invite-button", run: (id, origin) => act("invite", { users: [id], room: room.id, forceJoin: force.checked }, origin),
        extra: h("label", { class: "muted small" }, force, " without asking"),
      });
    }
    const picker = userPicker(people, open ? "Choose a person…" : "Assign…", "room-assign", pickerButtons);
    const body = [
      h("ul", { class: "chips", testid: "room-occupants" }, room.occupants.map((id) => draggableUser(model, model.users.get(id) ?? { id, name: model.userName(id) }))),
      !open && room.assigned.length ? h("p", { class: "muted name", testid: "room-assigned" }, "Planned: ", room.assigned.map((id) => model.userName(id)).join(", ")) : null,
      invited.length ? h("p", { class: "muted name", testid: "room-invited" }, "Invited, not answered yet: ", invited.map((id) => model.userName(id)).join(", ")) : null,
    ];
    const name = this.renames.render(room.id, room.name, "room", (newName, origin) => act("renameRoom", { room: room.id, newName }, origin), () => this.view.render(model));
    const label = h("strong", { class: "name clamp", title: room.name }, room.name);
    // A compact card keeps its head to one line: renaming is under *More* there.
    const card = h("div", { class: `room${here ? " here" : ""}`, testid: "room-card", dataset: { room: room.name } },
      h("div", { class: "row spread room-head" }, compact ? label : name, count, actions),
      compact ? [h("p", { class: "muted name", testid: "room-occupant-names" }, room.occupants.map((id) => model.userName(id)).join(", ") || "Empty"),
        h("details", { open: this.renames.drafts.has(room.id) || null }, h("summary", {}, "More"), h("div", { class: "row spread" }, name), body, picker)] : [body, picker]);
    return dropTarget(card, (id, target) => act("assign", { users: [id], room: room.id }, target));
  }
}
