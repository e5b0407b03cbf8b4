// Links for one person (development app, the host with the host link): each joins its person
// under the name it was made for, brings them back to their seat when opened again in the same
// browser, and lets one browser at a time in (the server refuses a second: 2017). The links
// made are kept in this browser under the class (the session's name and the class's id).

import { h, fill } from "./dom.js";
import { createPersonalLink, inviteLink } from "./api.js";
import { describeError } from "./words.js";
import { showErrorNear, clearErrorNear } from "./feedback.js";

const key = (session) => `caucus.personal.${session.toLowerCase()}`;
// One run of the session: a class of the same name tomorrow has links of its own.
const classKey = (session, classID) => (classID ? `${session}\n${classID}` : session);

function load(session) {
  try { return JSON.parse(localStorage.getItem(key(session)) ?? "[]"); } catch { return []; }
}

function save(session, made) {
  try { localStorage.setItem(key(session), JSON.stringify(made)); } catch { /* shown until the page goes */ }
}

export class PersonalLinks {
  constructor() {
    this.session = null;
    this.hostInvite = null;
    this.made = [];
    this.name = h("input", { testid: "personal-name", maxlength: 200, autocomplete: "off", "aria-label": "Name of the person", placeholder: "Their name" });
    this.button = h("button", { type: "submit", testid: "personal-make" }, "Make their link");
    this.list = h("ul", { class: "list", testid: "personal-links" });
    const form = h("form", { class: "row", onsubmit: (event) => { event.preventDefault(); this.make(); } }, this.name, this.button);
    this.element = h("div", { class: "personal-links", testid: "personal" },
      h("h4", {}, "A link for one person"),
      h("p", { class: "muted small" }, "It joins them under this name, and opening it again in their browser brings them back to their seat. It works in one browser at a time."),
      form, this.list);
    this.element.hidden = true;
  }

  /** Shown to the host who has the host link's code. */
  render(model, hostInvite, classID) {
    this.element.hidden = !hostInvite || model.myRole !== "host";
    if (this.element.hidden) return;
    if (this.session !== model.name || this.classID !== classID) {
      this.session = model.name;
      this.classID = classID;
      this.made = load(classKey(model.name, classID));
      this.renderList();
    }
    this.hostInvite = hostInvite;
  }

  async make() {
    const name = this.name.value.trim();
    if (!name) { showErrorNear(this.button, "Type the person's name."); return; }
    this.button.disabled = true;
    try {
      const answer = await createPersonalLink(this.session, this.hostInvite, name);
      clearErrorNear(this.button);
      this.made = [...this.made, { name: answer.name, link: inviteLink(answer.session, answer.invite, answer.name) }];
      save(classKey(this.session, this.classID), this.made);
      this.name.value = "";
      this.renderList();
    } catch (error) {
      showErrorNear(this.button, describeError(error), error?.code);
    } finally {
      this.button.disabled = false;
    }
  }

  renderList() {
    fill(this.list, this.made.map(({ name, link }) => {
      const field = h("input", { readonly: true, value: link, testid: "personal-link-url", "aria-label": `${name}'s link`, onfocus: (event) => event.target.select() });
      const copy = h("button", { type: "button", class: "quiet", testid: "personal-link-copy", onclick: async () => {
        field.select();
        try { await navigator.clipboard.writeText(link); fill(copy, "Copied"); } catch { fill(copy, "Selected: copy it"); }
        setTimeout(() => fill(copy, "Copy"), 2000);
      } }, "Copy");
      return h("li", { testid: "personal-link", dataset: { userName: name } },
        h("span", { class: "chip-name", title: name }, name), h("div", { class: "row" }, field, copy));
    }));
  }
}
