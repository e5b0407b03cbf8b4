// The page's words for what the protocol names: statuses, departures, and the server's
// refusals by code. People read "room", "plan" and "main session", never a code or a
// protocol name; the code stays on the element (data-code) for whoever debugs.

/** The breakout's status, as the top bar and the notices say it. */
export const STATUS_WORDS = {
  none: "No rooms yet",
  committed: "Rooms ready",
  withdrawn: "No rooms",
  started: "Rooms open",
  stopping: "Rooms closing",
  stopped: "Rooms closed",
};

export function statusWords(status) { return STATUS_WORDS[status] ?? status; }

/** A notice for a status change, or null when the change says nothing new. Rooms removed
 * all at once leave no list behind (status `none`), which only the status before tells. */
export function statusNotice(status, previous) {
  switch (status) {
    case "none": return previous && previous !== "none" ? "The rooms were removed." : null;
    case "committed": return "The rooms are ready: start them when everyone is here.";
    case "withdrawn": return "The rooms were removed.";
    case "started": return "The rooms are open.";
    case "stopping": return "The rooms are closing: everyone comes back soon.";
    case "stopped": return "The rooms are closed: everyone is back in the main session.";
    default: return null;
  }
}

/** The role in words, after a name: " (Host)", " (Manager)", or nothing for a participant. */
export function roleSuffix(role) {
  return role === "host" ? " (Host)" : role === "manager" ? " (Manager)" : "";
}

export function departureNotice(name, reason) {
  switch (reason) {
    case "removed": return `${name} was removed from the session.`;
    case "timedOut": return `${name} lost the connection and left.`;
    default: return `${name} left.`;
  }
}

export function endedWords(reason) {
  switch (reason) {
    case "endedByHost": return "The host ended the session for everyone.";
    case "endedByServer": return "The session was ended by the app.";
    default: return "The session ended.";
  }
}

// The server's refusals (docs/errors.md), by code.
const ERRORS = new Map([
  [1001, "The server could not read what the page sent. Reload the page."],
  [1002, "The server does not know that action. Reload the page."],
  [1004, "The server could not accept that: check what you typed."],
  [1005, "Join the session first."],
  [1006, "You are already in the session."],
  [1007, "Your place in the session has expired: join again."],
  [1010, "The server could not do that just now; nothing changed. Try again."],
  [1011, "The app key or secret is wrong."],
  [1012, "Not found."],
  [1020, "This link is not valid (or has expired): ask the host for a new one."],
  [1021, "A class with that name is running already (or just starting): open its host link, or choose another name."],
  [1022, "The host has not opened this session yet."],
  [1023, "This class has ended: its links open nothing now. Ask the host for the links of the next class."],
  [1024, "This host link was replaced by a newer one: open the newest host link."],
  [1025, "The host is in this class from another browser. Take the host seat over? That browser leaves the class."],
  [2001, "Type a session name."],
  [2002, "The session name is too long (at most 150 characters)."],
  [2003, "Type your name."],
  [2004, "Your name is too long (at most 200 characters)."],
  [2005, "The password is too long (at most 10 characters)."],
  [2006, "The user identity in the token is too long."],
  [2007, "The session key in the token is too long."],
  [2008, "This token is for another session."],
  [2010, "This session is private: enter its password."],
  [2011, "Wrong password: try again."],
  [2012, "This session has ended."],
  [2013, "This session is full."],
  [2014, "This session has not started yet."],
  [2017, "This link is someone's own, and they are in the session from another browser: one link is one person. Go on in that browser, or ask the host for a link of your own."],
  [2018, "Only the host link makes links for one person."],
  [2019, "A manager can mute participants only."],
  [2020, "They are muted already."],
  [2021, "Use your own Mute button."],
  [2030, "Someone in this session already has that name: add an initial, or choose another."],
  [2031, "The host removed you from this session: this link does not let you back in."],
  [2032, "Too many wrong passwords for this session from here: try again in ten minutes."],
  [2033, "A name may not end with a role, such as (Host) or (Manager): the session shows each person's role. Choose another name."],
  [2101, "The join token is not valid."],
  [2102, "The join token is not valid (wrong signing method)."],
  [2103, "The join token is not valid for this app."],
  [2104, "The join token has expired: get a new one."],
  [2105, "The join token is not valid yet: check the computer's clock."],
  [2106, "The join token lasts too long (at most 48 hours)."],
  [2107, "The join token is for another session."],
  [2108, "The join token names an app this server does not know."],
  [2109, "The join token's role is not valid."],
  [2110, "The join token's version is not valid."],
  [2111, "The join token is missing something it needs."],
  [3001, "You are not allowed to do that."],
  [3002, "That person is no longer in the session."],
  [3003, "They are already a manager."],
  [3004, "They are not a manager."],
  [3005, "That cannot be done to the host."],
  [3006, "Only that person can do this for themselves."],
  [4001, "Type a room name."],
  [4002, "A room name is too long (at most 150 characters)."],
  [4003, "There is already a room with that name."],
  [4004, "That is more rooms than this session allows (50)."],
  [4005, "That room is not in the plan."],
  [4006, "The plan has no rooms yet: add rooms first."],
  [4007, "That cannot be done right now."],
  [4008, "That room no longer exists."],
  [4009, "The host assigns the rooms: you cannot choose one."],
  [4010, "The host brings everyone back: you cannot leave the room yourself."],
  [4011, "You are not in a room."],
  [4012, "Already in that room."],
  [4013, "That room is full."],
  [4014, "You already asked for help: wait for an answer."],
  [4015, "That help request was already answered."],
  [4016, "No timer is running."],
  [4017, "That duration is out of range."],
  [4018, "Nobody to move."],
  [4019, "Choose at least one person."],
  [4020, "That person is not in the plan."],
  [5001, "Go back to the main session first."],
  [5002, "A room must hold at least 2 people, and you must create at least one room."],
  [5003, "That invitation is no longer open."],
  [5004, "The main session is already paused."],
  [5005, "The main session is not paused."],
  [5006, "Nothing to change."],
  [5007, "The main session is paused: chat there is closed until the host resumes it."],
  [5008, "Remove the rooms first."],
  [5067, "Breakout rooms are off in this session (lecture mode)."],
  [6001, "That setting is out of range."],
  [6002, "Type a message first."],
  [6003, "The message is too long (at most 4,000 characters)."],
]);

// `wrongStatus` (4007) depends on what was tried: say what to do instead.
const WRONG_STATUS = {
  commit: "The rooms are open: stop them before changing the plan.",
  withdraw: "Stop the rooms before removing them.",
  start: "There are no rooms ready to start: make a plan and confirm it first.",
  stop: "The rooms are not open.",
  destroyAll: "There are no rooms to remove, or they are closing.",
  broadcast: "Messages to every room can be sent only while the rooms are open.",
  createRooms: "Wait until the rooms have closed.",
  createAndInvite: "Wait until the rooms have closed.",
  assign: "Make a plan or open rooms first.",
  pauseParent: "The main session can be paused only while the rooms are open.",
  muteParent: "The main session can be muted only while the rooms are open.",
  joinRoom: "The rooms are not open.",
};

// A refused start while rooms exist is about their status, not a missing plan.
const START_REFUSED = {
  committed: "The rooms are ready, but the server refused to start them: try again.",
  started: "The rooms are open already.",
  stopping: "The rooms are closing: press Everyone back to close them at once, then Start.",
};

/** A sentence for a refusal (a ProtocolError or anything thrown), for the operation tried, in the status the page saw. */
export function describeError(error, op, status) {
  if (error?.code === 4007 && op === "start" && START_REFUSED[status]) return START_REFUSED[status];
  if (error?.code === 4007 && WRONG_STATUS[op]) return WRONG_STATUS[op];
  // The server's own words say how long is left.
  if (error?.code === 2032 && error.message) return error.message;
  const known = ERRORS.get(error?.code);
  if (known) return known;
  if (error?.code === 0) return error.message; // the page's own: not connected, connection lost
  if (typeof error?.code === "number") return `Something went wrong (code ${error.code}).`;
  return String(error?.message ?? error);
}

/** "90 seconds", "1 minute", "5 minutes". */
export function describeSeconds(seconds) {
  if (seconds % 60 !== 0) return `${seconds} seconds`;
  return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
}
