// The session as this user sees it: built from the join snapshot and advanced by each event
// exactly as the server's own `apply` does (Sources/CaucusCore/Machine/SessionState+Apply.swift).

export class SessionModel {
  constructor(snapshot) {
    this.chat = [];
    this.notices = [];
    this.helpResult = null;
    this.helpPending = false;
    this.ended = null;
    this.clockOffset = 0;
    this.load(snapshot);
  }

  /** Replaces the whole state with a snapshot (join, or a resume that could not replay). */
  load(snapshot) {
    this.seq = snapshot.seq;
    this.you = snapshot.you;
    this.name = snapshot.name;
    this.hostID = snapshot.hostID ?? null;
    this.mode = snapshot.mode;
    this.settings = snapshot.settings;
    this.limits = snapshot.limits;
    this.users = new Map();
    for (const user of snapshot.users) {
      this.users.set(user.id, { ...user, isManager: user.role === "manager" });
    }
    this.breakout = structuredClone(snapshot.breakout);
    this.preList = snapshot.preList ?? [];
    this.helpRequests = snapshot.helpRequests ?? [];
    this.invitation = snapshot.invitation ?? null;
  }

  role(id) {
    if (id === this.hostID) return "host";
    return this.users.get(id)?.isManager ? "manager" : "participant";
  }

  get me() { return this.users.get(this.you); }
  get myRole() { return this.role(this.you); }
  get canManage() { return this.myRole !== "participant"; }
  get status() { return this.breakout.phase.status; }
  get roomsOpen() { return this.status === "started" || this.status === "stopping"; }
  get rooms() { return this.breakout.rooms; }

  room(id) { return this.rooms.find((room) => room.id === id) ?? null; }
  roomName(location) { return location == null ? "Main session" : this.room(location)?.name ?? `Room ${location}`; }
  userName(id) { return this.users.get(id)?.name ?? `User ${id}`; }
  usersIn(location) { return [...this.users.values()].filter((user) => (user.location ?? null) === location); }
  /** Milliseconds by the server's clock, estimated from the last event's `at`. */
  serverNow() { return Date.now() + this.clockOffset; }

  /** Folds one event frame in; returns a notice for people, if the event deserves one. */
  apply(frame) {
    this.seq = frame.seq;
    if (typeof frame.at === "number") this.clockOffset = frame.at - Date.now();
    const event = frame.event;
    switch (event.type) {
      case "userJoined": {
        const user = event.user;
        this.users.set(user.id, { id: user.id, name: user.name, location: user.location ?? null, presence: user.presence, identity: user.identity, joinedAt: user.joinedAt, isManager: user.role === "manager" });
        if (event.becomesHost) this.makeHost(user.id);
        return null;
      }
      case "userLeft": {
        const name = this.userName(event.user);
        this.relocate(event.user, null);
        this.users.delete(event.user);
        this.forget(event.user);
        if (this.hostID === event.user) {
          this.hostID = null;
          if (event.newHost != null) this.makeHost(event.newHost);
        }
        return event.user === this.you ? null : `${name} left (${event.reason}).`;
      }
      case "sessionEnded":
        this.ended = event.reason;
        return `The session ended (${event.reason}).`;
      case "hostChanged":
        this.makeHost(event.to);
        return `${this.userName(event.to)} is the host now.`;
      case "managerChanged":
        if (this.users.has(event.user)) this.users.get(event.user).isManager = event.isManager;
        return null;
      case "userRenamed":
        if (this.users.has(event.user)) this.users.get(event.user).name = event.name;
        return null;
      case "userReconnecting":
        if (this.users.has(event.user)) this.users.get(event.user).presence = { connected: false, reconnectingUntil: event.until };
        return null;
      case "userResumed":
        if (this.users.has(event.user)) this.users.get(event.user).presence = { connected: true };
        return null;
      case "modeChanged":
        this.mode = event.mode;
        return `The session is in ${event.mode} mode.`;
      case "settingsChanged":
        this.settings = event.settings;
        return null;
      case "preListChanged":
        this.preList = event.preList;
        return null;
      case "roleView":
        // What the grown role sees, sent with the change.
        if (event.preList) this.preList = event.preList;
        if (event.helpRequests) this.helpRequests = event.helpRequests;
        return null;
      case "statusChanged":
        this.applyStatus(event.breakout);
        return `Breakout ${event.breakout.phase.status}.`;
      case "usersMoved":
        for (const move of event.moves) this.relocate(move.user, move.to ?? null);
        return null;
      case "assignmentsChanged":
        for (const assignment of event.assignments) {
          const room = this.room(assignment.room);
          if (room) room.assigned = assignment.users;
        }
        return null;
      case "invited":
        if (event.invitation.users.includes(this.you)) {
          this.invitation = event.invitation.room;
          return `You are invited to ${this.roomName(event.invitation.room)}.`;
        }
        return `${event.invitation.users.map((id) => this.userName(id)).join(", ")} invited to ${this.roomName(event.invitation.room)}.`;
      case "invitationRejected":
        if (event.user === this.you) this.invitation = null;
        return `${this.userName(event.user)} declined ${this.roomName(event.room)}.`;
      case "parentControlChanged":
        this.breakout.parent = event.parent;
        return null;
      case "timerChanged":
        if (event.timer) this.breakout.timer = event.timer;
        else delete this.breakout.timer;
        return "The timer was extended.";
      case "timerWarning": {
        const timer = this.breakout.timer;
        if (timer) timer.pendingWarnings = timer.pendingWarnings.filter((seconds) => seconds < event.secondsRemaining);
        return { warning: true, text: `Timer warning: ${describeSeconds(event.secondsRemaining)} left.` };
      }
      case "helpRequested":
        this.helpRequests.push(event.request);
        return `${event.request.requesterName} asks for help in ${event.request.roomName}.`;
      case "helpAnswered":
        this.helpRequests = this.helpRequests.filter((request) => request.id !== event.request);
        if (event.requester === this.you) {
          this.helpResult = { result: event.result, by: event.by == null ? null : this.userName(event.by) };
          this.helpPending = false;
          return `Help request: ${describeHelpResult(this.helpResult)}`;
        }
        return null;
      case "chatMessage":
        this.chat.push(event.message);
        return null;
      case "broadcast": {
        const from = event.from == null ? "the server" : this.userName(event.from);
        return { broadcast: true, text: `Broadcast from ${from}: ${event.text}` };
      }
      default:
        return null;
    }
  }

  makeHost(id) {
    this.hostID = id;
    if (this.users.has(id)) this.users.get(id).isManager = false;
  }

  relocate(id, location) {
    const user = this.users.get(id);
    if (!user || (user.location ?? null) === location) return;
    for (const room of this.rooms) room.occupants = room.occupants.filter((occupant) => occupant !== id);
    const target = location == null ? null : this.room(location);
    if (target) target.occupants.push(id);
    user.location = target ? location : null;
    if (id === this.you) {
      this.invitation = null;
      this.helpResult = null;
      this.helpPending = false;
    }
    this.helpRequests = this.helpRequests.filter((request) => request.requester !== id);
  }

  forget(id) {
    for (const planned of this.preList) planned.assigned = planned.assigned.filter((user) => user !== id);
    for (const room of this.rooms) room.assigned = room.assigned.filter((user) => user !== id);
    this.helpRequests = this.helpRequests.filter((request) => request.requester !== id);
  }

  /** A status change carries the whole move: occupants are in their rooms, everyone else in the main session. */
  applyStatus(breakout) {
    this.breakout = structuredClone(breakout);
    for (const user of this.users.values()) user.location = null;
    for (const room of this.rooms) {
      room.occupants = room.occupants.filter((id) => this.users.has(id));
      for (const id of room.occupants) this.users.get(id).location = room.id;
    }
    const open = new Set(this.rooms.map((room) => room.id));
    if (this.status === "started") {
      if (this.invitation != null && !open.has(this.invitation)) this.invitation = null;
      this.helpRequests = this.helpRequests.filter((request) => open.has(request.room) && this.users.get(request.requester)?.location === request.room);
    } else {
      this.invitation = null;
      this.helpRequests = [];
      this.helpResult = null;
      this.helpPending = false;
    }
  }
}

/** "90 seconds", "1 minute", "5 minutes". */
export function describeSeconds(seconds) {
  if (seconds % 60 !== 0) return `${seconds} seconds`;
  return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
}

/** An answer to your help request (`{result, by}`: the seed's result and who answered), for people. */
export function describeHelpResult({ result, by }) {
  switch (result) {
    case "ignored": return `${by ?? "The host"} could not come (ignored).`;
    case "busy": return "nobody is free to help right now; ask again later.";
    case "managerJoining": return `${by ?? "The host"} is joining your room.`;
    case "managerAlreadyInSubsession": return `${by ?? "The host"} is already in your room.`;
    default: return result;
  }
}
