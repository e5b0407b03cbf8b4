// Renaming a room in place: a "Rename" button that turns the name into a small form. The form
// outlives the re-renders that every event causes (what was typed is kept), and closes once
// the server has accepted the new name; a refusal is shown next to it, in words.

import { h } from "./dom.js";
import { showErrorNear } from "./feedback.js";

export class RenameControls {
  constructor() {
    /** Which names are being edited, by key, with what was typed so far. */
    this.drafts = new Map();
  }

  /**
   * The name's heading, or its form while it is being renamed. `key` says which room (stable
   * across renders); `save(newName, origin)` sends it and resolves true once accepted.
   */
  render(key, name, testid, save, rerender) {
    const label = h("strong", { class: "name clamp", title: name }, name);
    if (!this.drafts.has(key)) {
      const open = h("button", { type: "button", class: "quiet", testid: `${testid}-rename`, "aria-label": `Rename ${name}`, onclick: () => {
        this.drafts.set(key, name);
        rerender();
        document.querySelector(`[data-testid="${testid}-rename-input"][data-key="${CSS.escape(String(key))}"]`)?.focus();
      } }, "Rename");
      return [label, open];
    }
    const input = h("input", { testid: `${testid}-rename-input`, dataset: { key: String(key) }, value: this.drafts.get(key), autocomplete: "off", "aria-label": `New name for ${name}`,
      oninput: (event) => this.drafts.set(key, event.target.value) });
    const saveButton = h("button", { type: "submit", class: "primary", testid: `${testid}-rename-save` }, "Save");
    const cancel = h("button", { type: "button", class: "quiet", testid: `${testid}-rename-cancel`, onclick: () => { this.drafts.delete(key); rerender(); } }, "Cancel");
    const form = h("form", { class: "row rename", onsubmit: async (event) => {
      event.preventDefault();
      const newName = input.value.trim();
      if (!newName) { showErrorNear(saveButton, "Type the room's new name."); return; }
      if (newName === name) { this.drafts.delete(key); rerender(); return; }
      if (await save(newName, saveButton)) { this.drafts.delete(key); rerender(); }
    } }, input, saveButton, cancel);
    return [form];
  }

  /** Forgets forms for rooms that are gone (or renamed under another key). */
  keep(keys) {
    for (const key of this.drafts.keys()) if (!keys.has(key)) this.drafts.delete(key);
  }
}
