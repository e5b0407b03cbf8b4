// The host's own link (the host only): kept out of sight until asked for, and replaceable.
// Replacing it makes a new host link for the class and the old one is refused from that
// moment (1024), for whoever saw it; this page becomes the new link.

import { h, fill } from "./dom.js";
import { describeError } from "./words.js";
import { showErrorNear, clearErrorNear } from "./feedback.js";

export class HostLinkPanel {
  /** `replace(origin)` asks the server for a new host link and resolves to it (app.js). */
  constructor(replace) {
    this.replace = replace;
    this.field = h("input", { readonly: true, testid: "host-link", "aria-label": "Your host link", onfocus: (event) => event.target.select() });
    this.show = h("button", { type: "button", class: "quiet", testid: "host-link-show", "aria-expanded": "false", onclick: () => this.toggle() }, "Show my host link");
    this.replaceButton = h("button", { type: "button", class: "quiet", testid: "host-link-replace", onclick: () => this.renew() }, "Replace the host link");
    this.fieldRow = h("div", { class: "row", hidden: true }, this.field);
    this.note = h("p", { class: "muted small", testid: "host-link-note", role: "status" });
    this.element = h("div", { testid: "host-link-panel" },
      h("p", { class: "muted small" }, "Your host link makes whoever opens it the host: keep it to yourself. Opening it again in this browser brings you back to your seat. If someone saw it, replace it: the old one stops working at once."),
      h("div", { class: "row" }, this.show, this.replaceButton), this.fieldRow, this.note);
    this.element.hidden = true;
  }

  render(model, link) {
    this.element.hidden = !link || model.myRole !== "host";
    if (this.field.value !== (link ?? "")) this.field.value = link ?? "";
  }

  toggle() {
    this.fieldRow.hidden = !this.fieldRow.hidden;
    this.show.setAttribute("aria-expanded", String(!this.fieldRow.hidden));
    fill(this.show, this.fieldRow.hidden ? "Show my host link" : "Hide my host link");
  }

  async renew() {
    this.replaceButton.disabled = true;
    try {
      this.field.value = await this.replace();
      clearErrorNear(this.replaceButton);
      fill(this.note, "A new host link is made: the old one no longer works. This page is the new link.");
    } catch (error) {
      showErrorNear(this.replaceButton, describeError(error), error?.code);
    } finally {
      this.replaceButton.disabled = false;
    }
  }
}
