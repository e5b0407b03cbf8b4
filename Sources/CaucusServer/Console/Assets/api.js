// HTTP calls: the app's control API (/v1, HTTP Basic with the app key and secret) and the
// console's development helpers (/console/dev, answered only on the development app).

import { ProtocolError } from "./protocol.js";

async function call(method, path, { body, credentials } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (credentials) headers.Authorization = "Basic " + btoa(`${credentials.key}:${credentials.secret}`);
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ProtocolError(json.error ?? { code: response.status, name: "httpError", message: `${method} ${path} answered ${response.status}.` });
  }
  return json;
}

/** The app's live sessions: `[{id, name, users, status, createdAt, seq}]`. */
export async function liveSessions(credentials) {
  return (await call("GET", "/v1/sessions", { credentials })).sessions;
}

/** Whether this server runs on its development app. */
export async function developmentMode() {
  try {
    return (await call("GET", "/console/dev")).development === true;
  } catch {
    return false;
  }
}

/** The development app's key and secret (development only). */
export function developmentApp() {
  return call("GET", "/console/dev/app");
}

/** A join token for the development app (development only). */
export async function developmentToken(session, role) {
  return (await call("POST", "/console/dev/token", { body: { session, role } })).token;
}
