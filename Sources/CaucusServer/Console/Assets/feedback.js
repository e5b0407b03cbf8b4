// What the page says next to the control that caused it: refusals, and questions before an
// action that cannot be undone. People look at the button they pressed, not at the top of
// the page.

import { h } from "./dom.js";

/** The block a message goes after: the control's row or form, else the control itself. */
function anchorOf(origin) {
  return origin.closest(".row, form, .confirm") ?? origin;
}

function slotAfter(anchor, className, testid) {
  const next = anchor.nextElementSibling;
  if (next?.classList.contains(className)) return next;
  const slot = h("div", { class: className, testid, role: className === "inline-error" ? "alert" : null });
  anchor.after(slot);
  return slot;
}

/** Shows `text` (with the server's `code`, if any, kept on the element) next to `origin`. */
export function showErrorNear(origin, text, code) {
  const slot = slotAfter(anchorOf(origin), "inline-error", "inline-error");
  slot.replaceChildren(text);
  if (code != null) slot.dataset.code = String(code);
  else delete slot.dataset.code;
  slot.hidden = false;
}

/** Removes the message next to `origin`, once what it was about has worked. */
export function clearErrorNear(origin) {
  const next = anchorOf(origin).nextElementSibling;
  if (next?.classList.contains("inline-error")) next.remove();
}

/**
 * Asks next to `origin`: `choices` is `[{value, label, testid, class?}]`. Resolves with the
 * chosen value, or null for *Cancel*. One question at a time per control.
 */
export function askNear(origin, question, choices) {
  const anchor = anchorOf(origin);
  anchor.parentElement?.querySelector(":scope > .confirm")?.remove();
  return new Promise((resolve) => {
    const panel = h("div", { class: "confirm", testid: "confirm", role: "alertdialog" });
    // Focus goes back to the control that asked, never to the page's <body>.
    const answer = (value) => {
      const hadFocus = panel.contains(document.activeElement);
      panel.remove();
      if (hadFocus) focusNear(origin, anchor);
      resolve(value);
    };
    panel.append(
      h("p", {}, question),
      h("div", { class: "row" },
        choices.map((choice) => h("button", { type: "button", class: choice.class ?? null, testid: choice.testid, onclick: () => answer(choice.value) }, choice.label)),
        h("button", { type: "button", class: "quiet", testid: "confirm-cancel", onclick: () => answer(null) }, "Cancel")));
    anchor.after(panel);
    panel.querySelector("button")?.focus();
  });
}

/** Focuses `origin`, else what stands in its place, else its card: never `<body>`. */
export function focusNear(origin, anchor) {
  for (const candidate of [origin, anchor]) {
    if (candidate?.isConnected && typeof candidate.focus === "function") {
      candidate.focus({ preventScroll: true });
      if (document.activeElement === candidate) return;
    }
  }
  const card = (origin?.isConnected ? origin : anchor)?.closest?.("section");
  if (card?.isConnected) focusCard(card);
}

/** A card (a `section`) takes focus as a whole, for a screen reader to read where one is. */
export function focusCard(card) {
  if (!card.hasAttribute("tabindex")) card.setAttribute("tabindex", "-1");
  card.focus({ preventScroll: true });
}
