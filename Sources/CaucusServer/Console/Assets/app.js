// The console's entry point: the join form (or the resume of this tab's seat after a
// reload), development helpers, leaving, and choosing the view.

import { byTestId, fill, h } from "./dom.js";
import { CaucusConnection, ProtocolError } from "./protocol.js";
import { SessionModel } from "./state.js";
import { liveSessions, developmentMode, developmentApp, developmentToken } from "./api.js";
import { HostView } from "./host.js";
import { ParticipantView } from "./participant.js";
import { timerText } from "./panels.js";
import { describeError, statusWords } from "./words.js";
import { showErrorNear, clearErrorNear } from "./feedback.js";
import { saveSeat, loadSeat, forgetSeat } from "./seat.js";

const form = byTestId("join-form");
const field = (name) => form.elements.namedItem(name);
const sessionsPanel = byTestId("sessions-panel");
let connection = null;
let model = null;
let view = null;
let details = null;

function showError(error, op) {
  const element = byTestId("error");
  fill(byTestId("error-text"), describeError(error, op));
  if (typeof error?.code === "number") element.dataset.code = String(error.code);
  element.hidden = false;
}

function clearError() { byTestId("error").hidden = true; }

/**
 * Runs an operation. A refusal is said in plain words next to `origin` (the control that
 * asked), or at the top when there is none. Resolves true when it succeeded.
 */
async function act(op, args = {}, origin = null) {
  try {
    await connection.request(op, args);
    if (origin) clearErrorNear(origin);
    clearError();
    return true;
  } catch (error) {
    if (origin?.isConnected) showErrorNear(origin, describeError(error, op), error?.code);
    else showError(error, op);
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
  const origin = byTestId("load-sessions");
  try {
    const sessions = await liveSessions(app);
    if (!quiet) clearErrorNear(origin);
    fill(byTestId("sessions-list"), sessions.length === 0 ? h("li", { class: "muted" }, "No live sessions.") : sessions.map((session) =>
      h("li", { class: "row spread", testid: "session-row", dataset: { session: session.name } },
        h("span", { class: "name" }, h("strong", {}, session.name), ` · ${session.users} ${session.users === 1 ? "person" : "people"} · ${statusWords(session.status)}`),
        model ? null : h("button", { type: "button", class: "quiet", testid: "session-pick", onclick: () => { field("session").value = session.name; } }, "Use"))));
  } catch (error) {
    if (!quiet) showErrorNear(origin, describeError(error), error?.code);
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
  byTestId("dev-fill-app").addEventListener("click", async (event) => {
    try {
      const app = await developmentApp();
      byTestId("app-key").value = app.key;
      byTestId("app-secret").value = app.secret;
      await loadSessions();
    } catch (error) { showErrorNear(event.currentTarget, describeError(error), error?.code); }
  });
  byTestId("dev-token").addEventListener("click", async (event) => {
    const origin = event.currentTarget;
    try {
      field("token").value = await developmentToken(field("session").value.trim(), form.elements.namedItem("role").value);
      clearErrorNear(origin);
    } catch (error) { showErrorNear(origin, describeError(error), error?.code); }
  });
}

// --- Joining, and resuming this tab's seat ---

function newConnection() {
  return new CaucusConnection(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
}

async function join(event) {
  event.preventDefault();
  details = { session: field("session").value.trim(), userName: field("userName").value.trim() };
  const joinButton = byTestId("join");
  joinButton.disabled = true;
  try {
    // A refused password may be retried on the same connection.
    if (!connection || connection.socket?.readyState !== WebSocket.OPEN || connection.user != null) {
      connection = newConnection();
      await connection.open();
    }
    const result = await connection.join({ ...details, token: field("token").value.trim(), password: field("password").value });
    clearErrorNear(joinButton);
    started(new SessionModel(result.snapshot));
  } catch (error) {
    if (error instanceof ProtocolError && (error.name === "needPassword" || error.name === "passwordWrong")) {
      fill(byTestId("password-hint"), describeError(error));
      field("password").focus();
    }
    showErrorNear(joinButton, describeError(error, "join"), error?.code);
  } finally {
    joinButton.disabled = false;
  }
}

/** After a reload: back into the same seat, room and chat, without joining again. */
async function resumeSavedSeat(seat) {
  details = seat.details;
  byTestId("landing").hidden = true;
  connection = newConnection();
  started(SessionModel.restore(seat.model));
  fill(byTestId("connection-state"), "rejoining…");
  try {
    await connection.resumeSeat(seat);
  } catch (error) {
    if (error instanceof ProtocolError && error.name === "resumeRefused") {
      forgetSeat();
      showLanding(`Your place in ${details.session} has expired: join again.`);
      return;
    }
    // The server is not there yet: keep trying, as after any dropped connection.
    connection.reconnect();
  }
}

function showLanding(note) {
  connection = null;
  model = null;
  view = null;
  byTestId("session-bar").hidden = true;
  byTestId("host-view").hidden = byTestId("participant-view").hidden = true;
  byTestId("landing").hidden = false;
  byTestId("landing").append(sessionsPanel);
  if (details) {
    field("session").value = details.session;
    field("userName").value = details.userName;
  }
  fill(byTestId("join-note"), note);
  byTestId("join-note").hidden = !note;
}

let ticking = null;

function started(initial) {
  model = initial;
  const save = () => saveSeat({ secret: connection.secret, lastSeq: connection.lastSeq, details, model: model.saved() });
  connection.addEventListener("event", (event) => {
    const notice = model.apply(event.detail);
    if (notice) view.notice(notice);
    if (notice?.kind === "host") showRoleBanner(notice.text);
    render();
    save();
    if (LISTED_CHANGES.has(event.detail.event.type)) refreshSessionsQuietly();
  });
  connection.addEventListener("snapshot", (event) => { model.load(event.detail); render(); save(); });
  connection.addEventListener("state", (event) => {
    fill(byTestId("connection-state"), event.detail);
    if (event.detail === "connected") save();
  });
  connection.addEventListener("closed", (event) => {
    forgetSeat();
    const closed = byTestId("closed");
    fill(closed, event.detail, " ", h("button", { type: "button", testid: "start-again", onclick: () => location.reload() }, "Join again"));
    closed.hidden = false;
    fill(byTestId("connection-state"), "closed");
  });
  byTestId("landing").hidden = true;
  byTestId("session-bar").hidden = false;
  if (connection.state !== "reconnecting") fill(byTestId("connection-state"), "connected");
  render();
  if (connection.secret) save();
  clearInterval(ticking);
  ticking = setInterval(() => { if (model) fill(byTestId("timer"), timerText(model)); }, 500);
}

function showRoleBanner(text) {
  const banner = byTestId("role-banner");
  fill(banner, text, " ", h("button", { type: "button", class: "quiet", testid: "role-banner-dismiss", onclick: () => { banner.hidden = true; } }, "OK"));
  banner.hidden = false;
}

const ROLE_WORDS = { host: "host", manager: "manager", participant: "participant" };

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
  fill(byTestId("session-title"), `${model.name} · ${me ? me.name : "?"} (${ROLE_WORDS[model.myRole]})`);
  fill(byTestId("status"), statusWords(model.status));
  byTestId("status").dataset.status = model.status;
  fill(byTestId("timer"), timerText(model));
  view.render(model);
}

// --- Leaving ---

/** Who the host role passes to when the host leaves: the longest-present manager, else participant. */
function nextHost() {
  const others = [...model.users.values()].filter((user) => user.id !== model.you).sort((a, b) => a.joinedAt - b.joinedAt);
  return others.find((user) => model.role(user.id) === "manager") ?? others[0] ?? null;
}

function askToLeave() {
  if (!connection || !model) return;
  const panel = byTestId("leave-panel");
  const close = () => { panel.hidden = true; };
  const leave = async (endSession, button) => {
    try {
      connection.leaving = true;
      forgetSeat();
      await connection.leave(endSession);
      close();
    } catch (error) {
      // Ending the session closes the connection before any reply: that is the success.
      if (!(endSession && error?.name === "connectionLost")) showErrorNear(button, describeError(error, "leave"), error?.code);
    }
  };
  const heir = model.myRole === "host" ? nextHost() : null;
  const buttons = [];
  if (model.myRole === "host" && heir) {
    buttons.push(h("button", { type: "button", class: "danger", testid: "leave-end-all", onclick: (event) => leave(true, event.currentTarget) }, "End the session for everyone"));
    buttons.push(h("button", { type: "button", testid: "leave-confirm", onclick: (event) => leave(false, event.currentTarget) }, `Leave, and make ${heir.name} the host`));
  } else {
    buttons.push(h("button", { type: "button", class: "danger", testid: "leave-confirm", onclick: (event) => leave(model.myRole === "host", event.currentTarget) }, "Leave"));
  }
  buttons.push(h("button", { type: "button", class: "quiet", testid: "leave-cancel", onclick: close }, "Stay"));
  const question = model.myRole === "host" && heir
    ? `Leave ${model.name}? You are the host: end the session for everyone, or leave it running with ${heir.name} as the host.`
    : model.myRole === "host" ? `Leave ${model.name}? You are the only one here, so it ends.` : `Leave ${model.name}?`;
  fill(panel, h("p", {}, question), h("div", { class: "row" }, buttons));
  panel.hidden = false;
}

// --- Start ---

form.addEventListener("submit", join);
byTestId("sessions-form").addEventListener("submit", (event) => { event.preventDefault(); loadSessions(); });
byTestId("error-dismiss").addEventListener("click", clearError);
byTestId("leave").addEventListener("click", askToLeave);
function showSessionsPanelForHosts() {
  sessionsPanel.hidden = form.elements.namedItem("role").value !== "host";
}
for (const radio of form.querySelectorAll('input[name="role"]')) radio.addEventListener("change", showSessionsPanelForHosts);
byTestId("app-key").value = sessionStorage.getItem("caucus.appKey") ?? "";
byTestId("app-secret").value = sessionStorage.getItem("caucus.appSecret") ?? "";
const wanted = new URLSearchParams(location.search);
if (wanted.get("session")) field("session").value = wanted.get("session");
if (wanted.get("role") === "host") byTestId("role-host").checked = true;
showSessionsPanelForHosts();
setUpDevelopmentMode();
const seat = loadSeat();
if (seat) resumeSavedSeat(seat);

// For debugging from the browser's console, and for the browser tests.
window.caucusConsole = { get connection() { return connection; }, get model() { return model; } };
