// HTTP calls: the console's development helpers (/console/dev, answered only on the
// development app). They take a session name or an invite code, never the app's key or
// secret, which stay on the server.

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

/** A new session's two invite codes: `{session, hostInvite, participantInvite}` (development only). */
export function createSession(session) {
  return call("POST", "/console/dev/session", { body: { session } });
}

/**
 * A join token of the role the invite code grants: `{token, role}`; for a personal link
 * (`person`: its name and this browser's id) `{token, role, name}` (development only).
 */
export function tokenForInvite(session, invite, person) {
  return call("POST", "/console/dev/token", { body: { session, invite, ...(person ?? {}) } });
}

/** A personal link's code, made with the host link's code: `{session, name, invite}` (development only). */
export function createPersonalLink(session, hostInvite, name) {
  return call("POST", "/console/dev/person", { body: { session, invite: hostInvite, name } });
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
