// The host's overview of every place at once: the main session and each room, who is in it,
// whose microphone is on, who speaks (heard only where the host is: the server sends each
// user the media of its own location), who asked for help, and who switched rooms (is in a
// room the plan did not put them in).

import { h, fill } from "./dom.js";
import { roleSuffix } from "./words.js";

export class Overview {
  constructor() {
    this.list = h("div", { class: "overview", testid: "overview" });
    this.element = h("section", { class: "card", "aria-labelledby": "overview-heading" }, h("h3", { id: "overview-heading" }, "Every room at a glance"), this.list);
  }

  render(model, media) {
    // Past a dozen rooms the empty ones are named on one line, so 50 rooms stay short.
    const many = model.rooms.length > 12;
    const empty = many ? model.rooms.filter((room) => model.usersIn(room.id).length === 0) : [];
    const hidden = new Set(empty.map((room) => room.id));
    const places = [null, ...model.rooms.map((room) => room.id).filter((id) => !hidden.has(id))];
    const helpers = new Set(model.helpRequests.map((request) => request.requester));
    fill(this.list, places.map((place) => {
      const people = model.usersIn(place);
      if (place == null && people.length === 0) return null;
      const here = place === model.location;
      return h("div", { class: `overview-room${here ? " here" : ""}`, testid: "overview-room", dataset: { room: model.roomName(place) } },
        h("div", { class: "row spread" }, h("strong", { class: "name clamp", title: model.roomName(place) }, model.roomName(place)),
          h("span", { class: "muted" }, here ? `${people.length} · you are here` : `${people.length}`)),
        people.length === 0 ? h("p", { class: "muted" }, "Empty") : h("ul", { class: "overview-people" }, people.map((user) => {
          const publishing = user.id === model.you ? media?.publishing ?? [] : user.publishing ?? [];
          // The server lists the speakers of the host's own location only.
          const speaking = here && publishing.includes("audio") && Boolean(media?.speaking(user.id));
          const flags = [
            publishing.includes("audio") ? null : "muted",
            speaking ? "speaking" : null,
            helpers.has(user.id) ? "asks for help" : null,
            model.switched(user.id) ? "switched rooms" : null,
            user.presence?.connected === false ? "reconnecting" : null,
          ].filter(Boolean);
          return h("li", { testid: "overview-person", dataset: { userName: user.name, flags: flags.join(",") }, class: speaking ? "speaking" : null },
            h("span", { class: "chip-name", title: user.name }, `${user.name}${roleSuffix(model.role(user.id))}`),
            flags.map((flag) => h("span", { class: `flag flag-${flag.split(" ")[0]}` }, flag)));
        })));
    }), empty.length ? h("p", { class: "muted overview-empty", testid: "overview-empty" }, `Empty: ${empty.map((room) => room.name).join(", ")}`) : null);
  }
}
