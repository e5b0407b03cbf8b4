// HTTP calls: the console's class endpoints. A class link's code names its class and role;
// the server turns it into a short-lived join token, a personal link or a new host link, for
// any app. Making a class is the development app's (/console/class); with configured apps
// `caucus link` makes the host link. Nothing here holds the app's key or secret.

import { ProtocolError } from "./protocol.js";

async function call(method, path, { body } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ProtocolError(json.error ?? { code: response.status, name: "httpError", message: `${method} ${path} answered ${response.status}.` });
  }
  return json;
}

// The server's public URL (`--public-url`), when it has one: the links handed to others name it.
let publicURL = null;

/** Whether this server runs on its development app (and learns its public URL). */
export async function developmentMode() {
  try {
    const status = await call("GET", "/console/dev");
    publicURL = typeof status.publicURL === "string" ? status.publicURL : null;
    return status.development === true;
  } catch {
    return false;
  }
}

/** A new class's id and its two invite codes, given once: `{session, class, hostInvite, participantInvite}` (development only). */
export function createSession(session) {
  return call("POST", "/console/class", { body: { session } });
}

/**
 * A join token of the role the invite code grants, for the code's class: `{token, role, class}`,
 * the host's with the class's `participantInvite`; for a personal link (`person`: its name and
 * this browser's id) with `name`. `takeOver`: a host link takes the host seat from the browser
 * that holds it (asked after 1025 `hostSeatTaken`).
 */
export function tokenForInvite(session, invite, person, { takeOver = false } = {}) {
  return call("POST", "/console/token", { body: { session, invite, ...(person ?? {}), ...(takeOver ? { takeOver } : {}) } });
}

/** A personal link's code, made with the host link's code: `{session, name, invite}`. */
export function createPersonalLink(session, hostInvite, name) {
  return call("POST", "/console/person", { body: { session, invite: hostInvite, name } });
}

/** A new host link's code for the class; the old code is refused from now: `{session, class, hostInvite}`. */
export function replaceHostLink(session, hostInvite) {
  return call("POST", "/console/host-link", { body: { session, invite: hostInvite } });
}

/**
 * The console link for an invite code (with the name a personal link was made for): on the
 * server's public URL when it has one, since others open it from their own machines; on this
 * page's own address otherwise, or with `here` (this page's own URL may name only its origin).
 */
export function inviteLink(session, invite, name, { here = false } = {}) {
  const link = new URL("/console/", here || publicURL == null ? location.href : publicURL);
  link.search = new URLSearchParams(name == null ? { session, invite } : { session, invite, name }).toString();
  return link.toString();
}

/** A link naming only the session, for people who join with a token of their own. */
export function sessionLink(session) {
  const link = new URL("/console/", location.href);
  link.search = new URLSearchParams({ session }).toString();
  return link.toString();
}
