// This tab's seat in a session, kept in sessionStorage so that a reload resumes it: the
// resume secret, the last event applied, and the page's model at that event. sessionStorage
// is per tab and gone when the tab closes, so two tabs are two people, as they should be.

const KEY = "caucus.seat";

/** Saves the seat: `{secret, lastSeq, details: {session, userName}, model: model.saved()}`. */
export function saveSeat(seat) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(seat));
  } catch {
    // A full or disabled storage only costs the resume after a reload.
  }
}

export function loadSeat() {
  try {
    const seat = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
    return seat && typeof seat.secret === "string" && typeof seat.lastSeq === "number" && seat.model ? seat : null;
  } catch {
    return null;
  }
}

export function forgetSeat() { sessionStorage.removeItem(KEY); }
