// The console's entry point: the join form, development helpers, and choosing the view.

import { byTestId, fill, h } from "./dom.js";
import { CaucusConnection, ProtocolError } from "./protocol.js";
import { SessionModel } from "./state.js";
import { liveSessions, developmentMode, developmentApp, developmentToken } from "./api.js";
import { HostView } from "./host.js";
import { ParticipantView } from "./participant.js";
import { timerText } from "./panels.js";

const form = byTestId("join-form");
const field = (name) => form.elements.namedItem(name);
const sessionsPanel = byTestId("sessions-panel");
let connection = null;
let model = null;
let view = null;

function showError(error) {
  const text = error instanceof ProtocolError ? error.toString() : String(error?.message ?? error);
  fill(byTestId("error-text"), text);
  byTestId("error").hidden = false;
}

function clearError() { byTestId("error").hidden = true; }

/** Runs an operation; shows a refusal with its code. Resolves true when it succeeded. */
async function act(op, args = {}) {
  try {
    await connection.request(op, args);
    clearError();
    return true;
  } catch (error) {
    showError(error);
    return false;
  }
}

// --- The app's credentials and its live sessions (HTTP control API) ---

function credentials() {
  return { key: byTestId("app-key").value.trim(), secret: byTestId("app-secret").value };
}

// Events that change what the session list shows (users, status).
const LISTED_CHANGES = new Set(["userJoined", "userLeft", "statusChanged"]);
let refreshing = null;

/** Keeps a list the host has loaded current, without flashing errors for it. */
function refreshSessionsQuietly() {
  if (!credentials().key || byTestId("sessions-list").childElementCount === 0 || refreshing) return;
  refreshing = setTimeout(() => { refreshing = null; loadSessions({ quiet: true }); }, 300);
}

async function loadSessions({ quiet = false } = {}) {
  const app = credentials();
  // sessionStorage: the secret stays in this tab and is gone when it closes.
  sessionStorage.setItem("caucus.appKey", app.key);
  sessionStorage.setItem("caucus.appSecret", app.secret);
  try {
    const sessions = await liveSessions(app);
    if (!quiet) clearError();
    fill(byTestId("sessions-list"), sessions.length === 0 ? h("li", { class: "muted" }, "No live sessions.") : sessions.map((session) =>
      h("li", { class: "row spread", testid: "session-row", dataset: { session: session.name } },
        h("span", {}, h("strong", {}, session.name), ` · ${session.users} ${session.users === 1 ? "user" : "users"} · ${session.status}`),
        model ? null : h("button", { type: "button", class: "quiet", testid: "session-pick", onclick: () => { field("session").value = session.name; } }, "Use"))));
  } catch (error) {
    if (!quiet) showError(error);
  }
}

// --- Development mode ---

async function setUpDevelopmentMode() {
  const on = await developmentMode();
  // Says on the page that the check is done, and how it came out.
  document.body.dataset.development = on ? "on" : "off";
  if (!on) return;
  byTestId("dev-banner").hidden = false;
  for (const element of document.querySelectorAll(".dev-only")) element.hidden = false;
  byTestId("dev-fill-app").addEventListener("click", async () => {
    try {
      const app = await developmentApp();
      byTestId("app-key").value = app.key;
      byTestId("app-secret").value = app.secret;
      await loadSessions();
    } catch (error) { showError(error); }
  });
  byTestId("dev-token").addEventListener("click", async () => {
    try {
      field("token").value = await developmentToken(field("session").value.trim(), form.elements.namedItem("role").value);
      clearError();
    } catch (error) { showError(error); }
  });
}

// --- Joining ---

async function join(event) {
  event.preventDefault();
  const details = { session: field("session").value.trim(), userName: field("userName").value.trim(), token: field("token").value.trim(), password: field("password").value };
  byTestId("join").disabled = true;
  try {
    // A refused password may be retried on the same connection.
    if (!connection || connection.socket?.readyState !== WebSocket.OPEN || connection.user != null) {
      connection = new CaucusConnection(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
      await connection.open();
    }
    const result = await connection.join(details);
    clearError();
    started(result.snapshot);
  } catch (error) {
    if (error instanceof ProtocolError && (error.name === "needPassword" || error.name === "passwordWrong")) {
      fill(byTestId("password-hint"), error.name === "needPassword" ? "This session is private: enter its password." : "Wrong password: try again.");
      field("password").focus();
    }
    showError(error);
  } finally {
    byTestId("join").disabled = false;
  }
}

function started(snapshot) {
  model = new SessionModel(snapshot);
  connection.addEventListener("event", (event) => {
    const notice = model.apply(event.detail);
    if (notice) view.notice(notice);
    render();
    if (LISTED_CHANGES.has(event.detail.event.type)) refreshSessionsQuietly();
  });
  connection.addEventListener("snapshot", (event) => { model.load(event.detail); render(); });
  connection.addEventListener("state", (event) => fill(byTestId("connection-state"), event.detail));
  connection.addEventListener("closed", (event) => {
    const closed = byTestId("closed");
    fill(closed, event.detail, " ", h("button", { type: "button", onclick: () => location.reload() }, "Start again"));
    closed.hidden = false;
    fill(byTestId("connection-state"), "closed");
  });
  byTestId("landing").hidden = true;
  byTestId("session-bar").hidden = false;
  fill(byTestId("connection-state"), "connected");
  render();
  setInterval(() => fill(byTestId("timer"), timerText(model)), 500);
}

/** Managers and the host get the host view; it follows the role as it changes. */
function render() {
  const managing = model.canManage;
  const wanted = managing ? HostView : ParticipantView;
  if (!(view instanceof wanted)) {
    byTestId("host-view").hidden = !managing;
    byTestId("participant-view").hidden = managing;
    view = managing
      ? new HostView(byTestId("host-view"), act, sessionsPanel)
      : new ParticipantView(byTestId("participant-view"), act);
  }
  const me = model.me;
  fill(byTestId("session-title"), `${model.name} · ${me ? me.name : "?"} (${model.myRole})`);
  fill(byTestId("status"), model.status);
  byTestId("status").dataset.status = model.status;
  fill(byTestId("timer"), timerText(model));
  view.render(model);
}

// --- Start ---

form.addEventListener("submit", join);
byTestId("sessions-form").addEventListener("submit", (event) => { event.preventDefault(); loadSessions(); });
byTestId("error-dismiss").addEventListener("click", clearError);
byTestId("leave").addEventListener("click", async () => {
  if (!connection) return;
  try { await connection.leave(); } catch (error) { showError(error); }
});
for (const radio of form.querySelectorAll('input[name="role"]')) {
  radio.addEventListener("change", () => { sessionsPanel.hidden = form.elements.namedItem("role").value !== "host"; });
}
byTestId("app-key").value = sessionStorage.getItem("caucus.appKey") ?? "";
byTestId("app-secret").value = sessionStorage.getItem("caucus.appSecret") ?? "";
const wanted = new URLSearchParams(location.search);
if (wanted.get("session")) field("session").value = wanted.get("session");
if (wanted.get("role") === "participant") { byTestId("role-participant").checked = true; sessionsPanel.hidden = true; }
setUpDevelopmentMode();

// For debugging from the browser's console, and for the browser tests.
window.caucusConsole = { get connection() { return connection; }, get model() { return model; } };
