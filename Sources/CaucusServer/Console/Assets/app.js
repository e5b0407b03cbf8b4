// The console's entry point: starting a class (development app), joining by a class link
// (any app) or with a token, resuming this browser's seat, media, the end, and choosing the view
// (leaving is leave.js).

import { byTestId, fill, h } from "./dom.js";
import { CaucusConnection, ProtocolError } from "./protocol.js";
import { SessionModel } from "./state.js";
import { createSession, tokenForInvite, inviteLink, sessionLink, replaceHostLink } from "./api.js";
import { HostView } from "./host.js";
import { ParticipantView } from "./participant.js";
import { timerText } from "./panels.js";
import { describeError, statusWords } from "./words.js";
import { showErrorNear, clearErrorNear } from "./feedback.js";
import { saveSeat, loadSeat, forgetSeat, saveLinks, loadLinks, browserId } from "./seat.js";
import { MediaSession } from "./media.js";
import { keepingFocus, keepFocusClearOfTopBar, focusAfterJoining } from "./focus.js";
import { askToLeave, closeLeavePanel } from "./leave.js";
import { setUpLanding, say, classEndedOnLanding, askToTakeOver, closeTakeOverQuestion } from "./landing.js";

const form = byTestId("join-form");
const createForm = byTestId("create-form");
const field = (name) => form.elements.namedItem(name);
const wanted = new URLSearchParams(location.search);
// A class link: `?session=…&invite=…`, and `&name=…` for a personal link (a code made for that
// name only). The code names one class (one run of the session) and the role, decided by the
// server; it never opens another class of the same name.
const invite = wanted.get("invite") && wanted.get("session")
  ? { session: wanted.get("session"), code: wanted.get("invite"), name: wanted.get("name") }
  : null;
let connection = null;
let model = null;
let view = null;
let details = null;
let media = null;
let ended = false;

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
    if (origin?.isConnected) showErrorNear(origin, describeError(error, op, model?.status), error?.code);
    else showError(error, op);
    return false;
  }
}

// --- Joining: by a link, with a token, or a new class (the landing itself is landing.js) ---

function newConnection() {
  return new CaucusConnection(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
}

/** Joins on a fresh (or password-retried) connection; the model takes over from its snapshot. */
async function joinWith({ session, userName, token, password }, origin) {
  if (!connection || connection.socket?.readyState !== WebSocket.OPEN || connection.user != null) {
    connection = newConnection();
    await connection.open();
  }
  try {
    const result = await connection.join({ session, userName, token, password });
    clearErrorNear(origin);
    return result;
  } catch (error) {
    if (error instanceof ProtocolError && (error.name === "needPassword" || error.name === "passwordWrong")) {
      fill(byTestId("password-hint"), describeError(error));
      field("password").focus();
    }
    throw error;
  }
}

let waitingForHost = null;

async function join(event, { takeOver = false } = {}) {
  event?.preventDefault();
  clearTimeout(waitingForHost);
  closeTakeOverQuestion();
  const joinButton = byTestId("join");
  details = { session: field("session").value.trim(), userName: field("userName").value.trim(), invite: invite?.code };
  if (!details.userName) { showErrorNear(joinButton, "Type your name."); return; }
  joinButton.disabled = true;
  try {
    let token = field("token").value.trim();
    if (invite) {
      try {
        // The browser's id makes the seat this browser's: a person the host removed stays out.
        const person = invite.name != null ? { name: invite.name, browser: browserId() } : { browser: browserId() };
        const answer = await tokenForInvite(invite.session, invite.code, person, { takeOver });
        token = answer.token;
        details.class = answer.class;
        details.participantInvite = answer.participantInvite;
        if (answer.name != null) details.userName = answer.name;
      } catch (error) {
        if (error?.name === "classEnded") { classEndedOnLanding(invite, error); return; }
        if (error?.name === "hostSeatTaken") { askToTakeOver(error, () => join(null, { takeOver: true })); return; }
        if (error?.name === "sessionNotOpenYet") {
          // Whoever joins first hosts: a participant's link waits for the host instead.
          say(`${invite.session} has not started yet: you join as soon as the host opens it.`);
          waitingForHost = setTimeout(join, 2000);
          return;
        }
        throw error;
      }
    }
    const result = await joinWith({ ...details, token, password: field("password").value }, joinButton);
    say(null);
    started(new SessionModel(result.snapshot));
    // A class reopened from its host link is a new session too: self-select off, as on Start.
    if (invite) newClassDefaults();
  } catch (error) {
    showErrorNear(joinButton, describeError(error, "join"), error?.code);
  } finally {
    joinButton.disabled = false;
  }
}

/** Development app: one click makes the session, its two links, and joins as its host. */
async function create(event) {
  event.preventDefault();
  const button = byTestId("create-session");
  const session = createForm.elements.namedItem("session").value.trim();
  const userName = createForm.elements.namedItem("userName").value.trim();
  if (!session || !userName) { showErrorNear(button, session ? "Type your name." : "Type a session name."); return; }
  button.disabled = true;
  try {
    const links = await createSession(session);
    const hostToken = (await tokenForInvite(session, links.hostInvite)).token;
    saveLinks(session, { class: links.class, host: inviteLink(session, links.hostInvite), participant: inviteLink(session, links.participantInvite), hostInvite: links.hostInvite });
    details = { session, userName, invite: links.hostInvite, class: links.class, participantInvite: links.participantInvite };
    const result = await joinWith({ session, userName, token: hostToken, password: createForm.elements.namedItem("password").value }, button);
    // From now on this page is the host link: a reload or reopening it resumes this seat.
    history.replaceState(null, "", inviteLink(session, links.hostInvite, undefined, { here: true }));
    started(new SessionModel(result.snapshot));
    newClassDefaults();
  } catch (error) {
    showErrorNear(button, describeError(error, "join"), error?.code);
  } finally {
    button.disabled = false;
  }
}

/** Participants choose rooms only when the host lets them (Settings): a session this page
 *  just opened (its host alone in it) turns self-select off. */
function newClassDefaults() {
  if (model.myRole === "host" && model.users.size === 1 && model.settings.selfSelectAllowed) {
    act("updateSettings", { settings: { selfSelectAllowed: false } });
  }
}

/** After a reload or reopening the link: back into the same seat, room and chat. */
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
      forgetSeat(details?.invite);
      stopMedia();
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
  if (details) {
    field("session").value = details.session;
    field("userName").value = details.userName;
  }
  say(note);
}

// --- In the session ---

let ticking = null;

function stopMedia() {
  media?.close();
  media = null;
}

function startMedia() {
  media = new MediaSession(connection);
  window.caucusConsole.media = media;
  connection.addEventListener("slots", (event) => media?.setSlots(event.detail));
  connection.addEventListener("speakers", (event) => media?.setSpeakers(event.detail));
  const redraw = () => { if (model && view && !ended) view.tiles.render(model); };
  media.addEventListener("change", redraw);
  media.addEventListener("speakers", () => { redraw(); view?.renderMedia?.(model); });
  media.start().catch((error) => {
    if (media) media.problem = `Audio and video could not start (${describeError(error)}): you can still chat.`;
    redraw();
  });
  view?.tiles.attach(media);
}

function started(initial) {
  model = initial;
  ended = false;
  const save = () => saveSeat({ secret: connection.secret, lastSeq: connection.lastSeq, details, model: model.saved() });
  connection.addEventListener("event", (event) => {
    const where = model.location;
    const happened = event.detail.event;
    if (happened?.type === "mediaChanged" && happened.by != null && happened.user === model.you) media?.mutedByOther(happened.publishing);
    const notice = model.apply(event.detail);
    if (model.location !== where) media?.clearSpeakers();
    if (notice) view.notice(notice);
    if (notice?.kind === "host") showRoleBanner(notice.text);
    render();
    save();
  });
  connection.addEventListener("snapshot", (event) => {
    const where = model.location;
    model.load(event.detail);
    if (model.location !== where) media?.clearSpeakers();
    render();
    save();
  });
  connection.addEventListener("state", (event) => {
    fill(byTestId("connection-state"), event.detail);
    byTestId("connection-state").dataset.state = event.detail;
    if (event.detail === "connected") save();
  });
  connection.addEventListener("closed", (event) => sessionOver(event.detail));
  byTestId("landing").hidden = true;
  byTestId("session-bar").hidden = false;
  if (connection.state !== "reconnecting") {
    fill(byTestId("connection-state"), "connected");
    byTestId("connection-state").dataset.state = "connected";
  }
  render();
  focusAfterJoining();
  if (connection.secret) save();
  clearInterval(ticking);
  ticking = setInterval(() => { if (model && !ended) fill(byTestId("timer"), timerText(model)); }, 500);
  startMedia();
}

/** The session is over for this page: nothing on it may look live or take a click. */
function sessionOver(reason) {
  ended = true;
  forgetSeat(details?.invite);
  stopMedia();
  clearInterval(ticking);
  const closed = byTestId("closed");
  // A class link never starts another class: once its class is over, it says so and offers nothing.
  const classOver = details?.invite && (model?.ended != null || reason === "The session ended.");
  if (classOver) fill(closed, h("strong", {}, reason), " ", h("span", { testid: "class-ended" }, "This class has ended: its links open nothing now."));
  else fill(closed, h("strong", {}, reason), " ", h("button", { type: "button", testid: "start-again", onclick: () => location.reload() }, "Join again"));
  closed.hidden = false;
  fill(byTestId("connection-state"), "");
  fill(byTestId("timer"), "");
  fill(byTestId("status"), "Ended");
  byTestId("status").dataset.status = "ended";
  byTestId("leave").hidden = true;
  byTestId("leave-panel").hidden = true;
  document.body.dataset.ended = "true";
  for (const section of [byTestId("host-view"), byTestId("participant-view")]) section.inert = true;
  // Focus goes to what the page now says (never to <body>): the button, or the words.
  if (!closed.querySelector("button")) closed.tabIndex = -1;
  (closed.querySelector("button") ?? closed).focus();
}

function showRoleBanner(text) {
  const banner = byTestId("role-banner");
  fill(banner, text, " ", h("button", { type: "button", class: "quiet", testid: "role-banner-dismiss", onclick: () => { banner.hidden = true; } }, "OK"));
  banner.hidden = false;
}

const ROLE_WORDS = { host: "host", manager: "manager", participant: "participant" };

/** Managers and the host get the host view; it follows the role as it changes. */
function render() {
  if (ended) return;
  keepingFocus(() => {
    const managing = model.canManage;
    const wantedView = managing ? HostView : ParticipantView;
    if (!(view instanceof wantedView)) {
      byTestId("host-view").hidden = !managing;
      byTestId("participant-view").hidden = managing;
      view = managing
        ? new HostView(byTestId("host-view"), act, { links: () => links(), replaceHostLink: () => replaceTheHostLink() })
        : new ParticipantView(byTestId("participant-view"), act);
      if (media) view.tiles.attach(media);
    }
    const me = model.me;
    fill(byTestId("session-title"), `${model.name} · ${me ? me.name : "?"} (${ROLE_WORDS[model.myRole]})`);
    fill(byTestId("status"), statusWords(model.status));
    byTestId("status").dataset.status = model.status;
    fill(byTestId("timer"), timerText(model));
    view.render(model);
  });
}

/**
 * The class's links, for the host view: the participant link from the host's token answer (any
 * browser, any app), the host link kept by the browser that made or replaced it, or this
 * page's own when it was opened by the host link.
 */
function links() {
  const kept = loadLinks(model.name);
  const mine = kept && kept.class === details?.class ? kept : {};
  // Joined with an app's own token (no class link): a link naming the session, for people
  // who have a token of their own.
  const participant = mine.participant
    ?? (details?.participantInvite ? inviteLink(model.name, details.participantInvite) : sessionLink(model.name));
  const hostInvite = mine.hostInvite ?? (model.myRole === "host" ? details?.invite : undefined);
  const host = mine.host ?? (hostInvite ? inviteLink(model.name, hostInvite) : undefined);
  return { participant, host, hostInvite, class: details?.class };
}

/** The host replaces its host link: the old code is refused from now, and this page becomes the new link. */
async function replaceTheHostLink() {
  const { hostInvite } = links();
  const answer = await replaceHostLink(model.name, hostInvite);
  const old = details.invite;
  details = { ...details, invite: answer.hostInvite };
  const kept = loadLinks(model.name);
  const participant = kept?.class === details.class ? kept.participant : links().participant;
  saveLinks(model.name, { class: answer.class, host: inviteLink(model.name, answer.hostInvite), participant, hostInvite: answer.hostInvite });
  forgetSeat(old, { tabToo: false });
  history.replaceState(null, "", inviteLink(model.name, answer.hostInvite, undefined, { here: true }));
  saveSeat({ secret: connection.secret, lastSeq: connection.lastSeq, details, model: model.saved() });
  render();
  return inviteLink(model.name, answer.hostInvite);
}

// --- Start ---

// What leave.js reads of the page, as it is at the moment of reading.
const leavingPage = { get connection() { return connection; }, get model() { return model; }, get details() { return details; } };

form.addEventListener("submit", join);
createForm.addEventListener("submit", create);
byTestId("error-dismiss").addEventListener("click", clearError);
byTestId("leave").addEventListener("click", () => askToLeave(leavingPage));
document.addEventListener("keydown", (event) => { if (event.key === "Escape") closeLeavePanel(); });
keepFocusClearOfTopBar();
window.caucusConsole = { get connection() { return connection; }, get model() { return model; }, media: null };
const seat = loadSeat(invite?.code);
if (seat) resumeSavedSeat(seat);
setUpLanding(invite, wanted).then(() => {
  if (invite && !seat) {
    byTestId("invite-role").hidden = false;
    fill(byTestId("invite-role"), invite.name != null
      ? `This link is ${invite.name}'s own: it joins you as ${invite.name}, and opening it again in this browser brings you back to your seat.`
      : "Type your name and join: the link says what you may do in the session.");
  }
});
