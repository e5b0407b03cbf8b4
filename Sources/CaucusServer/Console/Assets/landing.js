// The landing page before a session: the form as a class link, a token or a new class needs it,
// and what it says when a link cannot join (the class has ended, or its host seat is taken).

import { byTestId, fill, h } from "./dom.js";
import { developmentMode } from "./api.js";
import { describeError } from "./words.js";

const form = byTestId("join-form");
const createForm = byTestId("create-form");
const field = (name) => form.elements.namedItem(name);

/**
 * Shapes the landing for `invite` (a class link, or null) and the page's query `wanted`;
 * resolves whether the server runs on its development app.
 */
export async function setUpLanding(invite, wanted) {
  const development = await developmentMode();
  // Says on the page that the check is done, and how it came out.
  document.body.dataset.development = development ? "on" : "off";
  byTestId("dev-banner").hidden = !development;
  if (invite) {
    fill(byTestId("join-heading"), `Join ${invite.session}`);
    byTestId("session-field").hidden = true;
    byTestId("token-field").hidden = true;
    field("session").value = invite.session;
    field("session").required = false;
    if (invite.name != null) {
      // A personal link: the name is the link's, not typed.
      fill(byTestId("join-heading"), `Join ${invite.session} as ${invite.name}`);
      field("userName").value = invite.name;
      byTestId("user-name-field").hidden = true;
      field("userName").required = false;
    }
    return development;
  }
  // With no link: a development server starts sessions in one click; any server takes a token.
  createForm.hidden = !development;
  byTestId("token-field").hidden = false;
  field("token").required = true;
  if (wanted.get("session")) field("session").value = wanted.get("session");
  return development;
}

/** A note under the join form (none: hidden). */
export function say(note) {
  fill(byTestId("join-note"), note ?? "");
  byTestId("join-note").hidden = !note;
}

/** A link of a class that has ended: it says so, and offers nothing that would start another. */
export function classEndedOnLanding(invite, error) {
  fill(byTestId("join-heading"), `${invite.session} has ended`);
  say(describeError(error, "join"));
  byTestId("join-note").dataset.code = String(error.code);
  for (const testid of ["join", "user-name-field", "invite-role"]) byTestId(testid).hidden = true;
  form.querySelector(".password").hidden = true;
}

/**
 * A host link opened while its host is in the class (1025): one host seat, so ask before
 * taking it; `takeOver` joins again, taking the seat.
 */
export function askToTakeOver(error, takeOver) {
  const question = h("div", { class: "question", testid: "take-over-question", role: "alertdialog", "aria-labelledby": "take-over-text" },
    h("p", { id: "take-over-text" }, describeError(error, "join")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", testid: "take-over", onclick: takeOver }, "Take the host seat over"),
      h("button", { type: "button", class: "quiet", testid: "take-over-cancel", onclick: closeTakeOverQuestion }, "Cancel")));
  question.dataset.code = String(error.code);
  form.append(question);
  question.querySelector("button").focus();
}

export function closeTakeOverQuestion() {
  byTestId("take-over-question")?.remove();
}
