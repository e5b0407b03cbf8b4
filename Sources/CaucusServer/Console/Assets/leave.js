// Leaving: the question *Leave* asks (a host with others present may end the session for
// everyone, or leave it running with the next host), the answer sent, and the seat forgotten.
// The page's connection, model and seat details are read through `page` each time they are
// used: they may change while the question is open (a refused resume clears them, a join
// replaces them).

import { byTestId, fill, h } from "./dom.js";
import { describeError } from "./words.js";
import { showErrorNear } from "./feedback.js";
import { forgetSeat } from "./seat.js";

/** Who the host role passes to when the host leaves: the longest-present manager, else participant. */
function nextHost(model) {
  const others = [...model.users.values()].filter((user) => user.id !== model.you).sort((a, b) => a.joinedAt - b.joinedAt);
  return others.find((user) => model.role(user.id) === "manager") ?? others[0] ?? null;
}

export function closeLeavePanel() {
  const panel = byTestId("leave-panel");
  if (panel.hidden) return;
  panel.hidden = true;
  byTestId("leave").focus();
}

/** `page`: the page's `connection`, `model` and seat `details`, as they are when read (the
 *  answer's buttons read them when clicked). */
export function askToLeave(page) {
  if (!page.connection || !page.model) return;
  const model = page.model;
  const panel = byTestId("leave-panel");
  const leave = async (endSession, button) => {
    try {
      page.connection.leaving = true;
      forgetSeat(page.details?.invite);
      await page.connection.leave(endSession);
      panel.hidden = true;
    } catch (error) {
      // Ending the session closes the connection before any reply: that is the success.
      if (!(endSession && error?.name === "connectionLost")) showErrorNear(button, describeError(error, "leave"), error?.code);
    }
  };
  const heir = model.myRole === "host" ? nextHost(model) : null;
  const buttons = [];
  if (model.myRole === "host" && heir) {
    buttons.push(h("button", { type: "button", class: "danger", testid: "leave-end-all", onclick: (event) => leave(true, event.currentTarget) }, "End the session for everyone"));
    buttons.push(h("button", { type: "button", testid: "leave-confirm", onclick: (event) => leave(false, event.currentTarget) }, `Leave, and make ${heir.name} the host`));
  } else {
    buttons.push(h("button", { type: "button", class: "danger", testid: "leave-confirm", onclick: (event) => leave(page.model.myRole === "host", event.currentTarget) }, "Leave"));
  }
  buttons.push(h("button", { type: "button", class: "quiet", testid: "leave-cancel", onclick: closeLeavePanel }, "Stay"));
  const question = model.myRole === "host" && heir
    ? `Leave ${model.name}? You are the host: end the session for everyone, or leave it running with ${heir.name} as the host.`
    : model.myRole === "host" ? `Leave ${model.name}? You are the only one here, so it ends.` : `Leave ${model.name}?`;
  fill(panel, h("p", { id: "leave-question" }, question), h("div", { class: "row" }, buttons));
  panel.hidden = false;
  panel.querySelector("button").focus();
}
