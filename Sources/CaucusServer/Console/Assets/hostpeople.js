// What the host (and a manager, for participants) does to one person from the People list:
// mute their microphone (the protocol's `muteUser`; only they turn it on again) and, for the
// host, remove them from the session (`remove`), after a question. A removed person's browser
// cannot come back with the same link: the session refuses a removed identity (2031).

import { h } from "./dom.js";
import { askNear } from "./feedback.js";

/** The Mute and Remove buttons for `user`'s row, or nothing this user may do to them. */
export function personActions(act, model, user) {
  if (user.id === model.you) return [];
  const targetRole = model.role(user.id);
  const mayMute = model.myRole === "host" ? targetRole !== "host" : targetRole === "participant";
  const hearing = (user.publishing ?? []).includes("audio");
  const mute = mayMute
    ? h("button", {
      type: "button", class: "quiet", testid: "user-mute", "aria-label": `Mute ${user.name}`,
      // Off while their microphone is, but still focusable: the keyboard stays where it was.
      "aria-disabled": hearing ? null : "true", title: hearing ? null : `${user.name}'s microphone is off`,
      onclick: (event) => { if (hearing) act("muteUser", { user: user.id, media: ["audio"] }, event.currentTarget); },
    }, hearing ? "Mute" : "Muted")
    : null;
  const remove = model.myRole === "host" && targetRole !== "host"
    ? h("button", {
      type: "button", class: "quiet danger-text", testid: "user-remove", "aria-label": `Remove ${user.name}`,
      onclick: (event) => confirmRemove(act, user, event.currentTarget),
    }, "Remove")
    : null;
  return [mute, remove];
}

async function confirmRemove(act, user, origin) {
  const answer = await askNear(origin,
    `Remove ${user.name} from the session? This browser of theirs cannot join again with the link; anyone opening the link in another browser is a new person, whom you can remove too.`,
    [{ value: "yes", label: `Remove ${user.name}`, testid: "confirm-remove", class: "danger" }]);
  if (answer) act("remove", { user: user.id }, origin);
}
