// This browser's seat in a session, so that a reload or reopening the link resumes it: the
// resume secret, the last event applied, and the page's model at that event.
//
// sessionStorage keeps it for the tab (a reload); localStorage keeps it for the invite link
// (closing the browser and opening the link again), under the link's code, so the same link
// in the same browser is the same person and leaves no second seat behind. The links of a
// session (host and participant) are kept for the host under the session's name.

const KEY = "caucus.seat";
const linkKey = (invite) => `caucus.seat.${invite}`;
const linksKey = (session) => `caucus.links.${session.toLowerCase()}`;

function read(storage, key) {
  try {
    const seat = JSON.parse(storage.getItem(key) ?? "null");
    return seat && typeof seat.secret === "string" && typeof seat.lastSeq === "number" && seat.model ? seat : null;
  } catch {
    return null;
  }
}

/** Saves the seat: `{secret, lastSeq, details: {session, userName, invite?}, model: model.saved()}`. */
export function saveSeat(seat) {
  try {
    const text = JSON.stringify(seat);
    sessionStorage.setItem(KEY, text);
    if (seat.details?.invite) localStorage.setItem(linkKey(seat.details.invite), text);
  } catch {
    // A full or disabled storage only costs the resume after a reload.
  }
}

/** The tab's seat, else the seat this browser holds for the invite code the page was opened with. */
export function loadSeat(invite) {
  const tab = read(sessionStorage, KEY);
  // A tab opened on another link is another seat.
  if (tab && (!invite || tab.details?.invite === invite)) return tab;
  return invite ? read(localStorage, linkKey(invite)) : null;
}

/** Forgets the seat (the tab's too, unless `tabToo` is false: a replaced host link keeps its tab's seat). */
export function forgetSeat(invite, { tabToo = true } = {}) {
  if (tabToo) sessionStorage.removeItem(KEY);
  if (invite) localStorage.removeItem(linkKey(invite));
}

export function saveLinks(session, links) {
  try { localStorage.setItem(linksKey(session), JSON.stringify(links)); } catch { /* the host view then shows none */ }
}

export function loadLinks(session) {
  try { return JSON.parse(localStorage.getItem(linksKey(session)) ?? "null"); } catch { return null; }
}

/**
 * This browser's own id for the personal links it opens: the server lets one browser at a time
 * in with a personal link, and knows a browser asking again (a password retried) by it.
 */
export function browserId() {
  try {
    let id = localStorage.getItem("caucus.browser");
    if (!id) {
      id = crypto.randomUUID();
      localStorage.setItem("caucus.browser", id);
    }
    return id;
  } catch {
    return crypto.randomUUID();
  }
}
