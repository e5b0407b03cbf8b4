// The session as this user sees it: built from the join snapshot and advanced by each event
// exactly as the server's own `apply` does (Sources/CaucusCore/Machine/SessionState+Apply.swift).

import { departureNotice, describeSeconds, endedWords, statusNotice } from "./words.js";
import { applyRecording, canRecord, isRecorded } from "./recording.js";

export class SessionModel {
  constructor(snapshot) {
    this.chat = [];
    this.helpResult = null;
    this.helpPending = false;
    this.ended = null;
    this.clockOffset = 0;
    // Pending invitations by room id (host and managers see them on the room cards).
    this.invitations = {};
    // What stays on screen until it no longer holds: the last broadcast, the timer warning,
    // and why you are where you are when someone else moved you.
    this.banners = { broadcast: null, warning: null, moved: null };
    // Set while this user's own move (join, return, accept) is on its way: no "you were moved".
    this.ownMove = false;
    // People this page moved into a room itself (user id → room id): not "switched rooms".
    this.placedByUs = new Map();
    this.load(snapshot);
  }

  /** The state in the snapshot's shape plus what only this page knows, to survive a reload. */
  saved() {
    return {
      snapshot: {
        seq: this.seq, you: this.you, name: this.name, hostID: this.hostID, mode: this.mode,
        settings: this.settings, limits: this.limits, breakout: this.breakout, preList: this.preList,
        helpRequests: this.helpRequests, invitation: this.invitation,
        voiceBroadcaster: this.voiceBroadcaster, listeners: this.listeners, recording: this.recording,
        users: [...this.users.values()].map((user) => ({ ...user, role: this.role(user.id) })),
      },
      chat: this.chat.slice(-200), invitations: this.invitations, banners: this.banners,
      helpPending: this.helpPending, helpResult: this.helpResult,
    };
  }

  /** A model from `saved()`. */
  static restore(saved) {
    const model = new SessionModel(saved.snapshot);
    model.chat = saved.chat ?? [];
    model.invitations = saved.invitations ?? {};
    model.banners = { ...model.banners, ...saved.banners };
    model.helpPending = saved.helpPending ?? false;
    model.helpResult = saved.helpResult ?? null;
    return model;
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
    // Who speaks to every room at once, and who listens in to which room: everyone sees both.
    this.voiceBroadcaster = snapshot.voiceBroadcaster ?? null;
    this.listeners = snapshot.listeners ?? [];
    // What the session records: { locations (null for the main session), everyRoom }; null for nothing.
    this.recording = snapshot.recording ?? null;
  }

  isRecorded(location) { return isRecorded(this, location); }
  get canRecord() { return canRecord(this); }

  /** Who listens in to a room, by name. */
  listenersOf(roomID) {
    return this.listeners.filter((listener) => listener.room === roomID).map((listener) => this.userName(listener.user));
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
  get location() { return this.me?.location ?? null; }
  /** People in the main session who are in no room and not planned for one. */
  get unplaced() {
    // Planned means in the committed rooms' plan, or (before there are rooms) in the host's.
    const plan = this.rooms.length ? this.rooms.flatMap((room) => room.assigned) : this.preList.flatMap((planned) => planned.assigned);
    const planned = new Set(this.roomsOpen ? [] : plan);
    return [...this.users.values()].filter((user) => (user.location ?? null) == null && !planned.has(user.id) && this.role(user.id) === "participant");
  }

  /** Whether the room you are in lets `kind` through (the main session always does). */
  roomAllows(kind) {
    const here = this.location;
    return here == null || this.room(here)?.definition?.[kind] !== false;
  }

  /** A participant in a room the plan did not put them in: they chose it (or were moved there). */
  switched(id) {
    const user = this.users.get(id);
    if (!user || user.location == null || this.role(id) !== "participant") return false;
    // Moved there from this page: the teacher's own move, not the student's switch.
    if (this.placedByUs.get(id) === user.location) return false;
    const room = this.room(user.location);
    return Boolean(room && this.rooms.some((other) => other.assigned.includes(id)) && !room.assigned.includes(id));
  }

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
        this.forgetHelperGone();
        if (this.hostID === event.user) {
          this.hostID = null;
          if (event.newHost != null) this.makeHost(event.newHost);
        }
        if (event.user === this.you) return null;
        if (event.newHost === this.you) return { kind: "host", text: `${name} left: you are the host now.` };
        if (event.newHost != null) return `${departureNotice(name, event.reason)} ${this.userName(event.newHost)} is the host now.`;
        return departureNotice(name, event.reason);
      }
      case "sessionEnded":
        this.ended = event.reason;
        return endedWords(event.reason);
      case "hostChanged":
        this.makeHost(event.to);
        return event.to === this.you ? { kind: "host", text: "You are the host now." } : `${this.userName(event.to)} is the host now.`;
      case "managerChanged":
        if (this.users.has(event.user)) this.users.get(event.user).isManager = event.isManager;
        if (event.user === this.you) return event.isManager ? "You are a manager now: you can run the rooms." : "You are no longer a manager.";
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
        return event.mode === "lecture" ? "Breakout rooms are off in this session." : "Breakout rooms are on in this session.";
      case "settingsChanged":
        this.settings = event.settings;
        return null;
      case "preListChanged":
        this.preList = event.preList;
        return null;
      case "mediaChanged":
        // What the user publishes now: the tiles show it (muted, camera off).
        if (this.users.has(event.user)) this.users.get(event.user).publishing = event.publishing;
        return null;
      case "roleView":
        // What the grown role sees, sent with the change.
        if (event.preList) this.preList = event.preList;
        if (event.helpRequests) this.helpRequests = event.helpRequests;
        return null;
      case "statusChanged":
        return this.applyStatus(event.breakout);
      case "usersMoved":
        for (const move of event.moves) this.relocate(move.user, move.to ?? null);
        this.forgetHelperGone();
        if (this.canManage) {
          // The host is told when someone is now in a room the plan did not put them in.
          const switched = event.moves.filter((move) => move.to != null && this.switched(move.user));
          if (switched.length) return switched.map((move) => `${this.userName(move.user)} switched to ${this.roomName(move.to)}.`).join(" ");
        }
        return this.movedNotice(event.moves.find((move) => move.user === this.you));
      case "assignmentsChanged":
        for (const assignment of event.assignments) {
          const room = this.room(assignment.room);
          if (room) room.assigned = assignment.users;
        }
        return null;
      case "roomRenamed": {
        const room = this.room(event.room);
        const old = room?.name;
        if (room) room.name = event.name;
        // A waiting help request names the room as it is called now, as the server's does.
        for (const request of this.helpRequests) if (request.room === event.room) request.roomName = event.name;
        return old ? `${old} is now called ${event.name}.` : null;
      }
      case "invited": {
        const { users, room } = event.invitation;
        for (const id of users) this.uninvite(id);
        this.invitations[room] = [...(this.invitations[room] ?? []), ...users];
        if (users.includes(this.you)) {
          this.invitation = room;
          return `You are invited to ${this.roomName(room)}.`;
        }
        return `${users.map((id) => this.userName(id)).join(", ")} invited to ${this.roomName(room)}.`;
      }
      case "invitationRejected":
        this.uninvite(event.user);
        if (event.user === this.you) {
          this.invitation = null;
          return `You declined ${this.roomName(event.room)}.`;
        }
        return `${this.userName(event.user)} declined ${this.roomName(event.room)}.`;
      case "parentControlChanged":
        this.breakout.parent = event.parent;
        return null; // the views show the main session's state for as long as it lasts
      case "timerChanged":
        if (event.timer) this.breakout.timer = event.timer;
        else delete this.breakout.timer;
        // A warning about the old end no longer holds.
        this.banners.warning = null;
        return event.timer ? `More time: the rooms now close at ${new Date(event.timer.endsAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}.` : null;
      case "timerWarning": {
        const timer = this.breakout.timer;
        if (timer) timer.pendingWarnings = timer.pendingWarnings.filter((seconds) => seconds < event.secondsRemaining);
        const warning = `Timer warning: ${describeSeconds(event.secondsRemaining)} left.`;
        // During the closing countdown the countdown itself is what is left.
        if (this.status === "started") this.banners.warning = warning;
        return warning;
      }
      case "helpRequested":
        this.helpRequests.push(event.request);
        return `${event.request.requesterName} asks for help in ${event.request.roomName}.`;
      case "helpAnswered":
        this.helpRequests = this.helpRequests.filter((request) => request.id !== event.request);
        if (event.requester === this.you) {
          this.helpResult = { result: event.result, by: event.by == null ? null : this.userName(event.by), byId: event.by ?? null };
          this.helpPending = false;
          // Her move may have come first.
          const text = `Help request: ${describeHelpResult(this.helpResult)}`;
          this.forgetHelperGone();
          return text;
        }
        return null;
      case "chatMessage":
        this.chat.push(event.message);
        return null;
      case "voiceBroadcast":
        if (event.active) this.voiceBroadcaster = event.user;
        else if (this.voiceBroadcaster === event.user) this.voiceBroadcaster = null;
        return event.active
          ? `${this.userName(event.user)} is speaking to every room.`
          : `${this.userName(event.user)} stopped speaking to every room.`;
      case "listening": {
        this.listeners = this.listeners.filter((listener) => listener.user !== event.user || listener.room !== event.room);
        if (event.active) this.listeners.push({ user: event.user, room: event.room });
        // A room always knows who listens in; so do the host and managers.
        if (this.location !== event.room && !this.canManage && event.user !== this.you) return null;
        return `${this.userName(event.user)} ${event.active ? "is listening in to" : "stopped listening in to"} ${this.roomName(event.room)}.`;
      }
      case "recordingChanged":
        return applyRecording(this, event);
      case "broadcast": {
        const from = event.from == null ? "the organisers" : this.userName(event.from);
        this.banners.broadcast = `Broadcast from ${from}: ${event.text}`;
        return this.banners.broadcast;
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
    this.uninvite(id);
    this.helpRequests = this.helpRequests.filter((request) => request.requester !== id);
  }

  uninvite(id) {
    for (const room of Object.keys(this.invitations)) {
      this.invitations[room] = this.invitations[room].filter((user) => user !== id);
      if (this.invitations[room].length === 0) delete this.invitations[room];
    }
  }

  /** "Ann is joining your room" holds until Ann has been and gone (or left the session). */
  forgetHelperGone() {
    const helper = this.helpResult?.byId;
    if (helper == null || !["managerJoining", "managerAlreadyInSubsession"].includes(this.helpResult.result)) return;
    const where = this.users.get(helper)?.location ?? null;
    if (where === this.location) this.helpResult.arrived = true;
    else if (this.helpResult.arrived || !this.users.has(helper)) this.helpResult = null;
  }

  /** "You were moved to Green" when someone else moved you; nothing for your own moves. */
  movedNotice(move) {
    if (!move) return null;
    if (this.ownMove) {
      this.ownMove = false;
      this.banners.moved = null;
      return null;
    }
    this.banners.moved = move.to == null ? "You were brought back to the main session." : `You were moved to ${this.roomName(move.to)}.`;
    return { kind: "moved", text: this.banners.moved };
  }

  forget(id) {
    for (const planned of this.preList) planned.assigned = planned.assigned.filter((user) => user !== id);
    for (const room of this.rooms) room.assigned = room.assigned.filter((user) => user !== id);
    this.helpRequests = this.helpRequests.filter((request) => request.requester !== id);
  }

  /** A status change carries the whole move: occupants are in their rooms, everyone else in the main session. */
  applyStatus(breakout) {
    const before = this.location;
    const previous = this.status;
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
      this.invitations = {};
      this.helpRequests = [];
      this.helpResult = null;
      this.helpPending = false;
    }
    for (const room of Object.keys(this.invitations)) if (!open.has(Number(room))) delete this.invitations[room];
    if (!this.roomsOpen) this.banners = { broadcast: null, warning: null, moved: null };
    // "1 minute left" is over once the rooms are closing: the countdown says what is left.
    // So is "You were moved to Red": everyone is on the way back.
    if (this.status === "stopping") this.banners.warning = this.banners.moved = null;
    const notice = statusNotice(this.status, previous);
    const after = this.location;
    if (after !== before && this.status === "started" && after != null) {
      this.banners.moved = `You were moved to ${this.roomName(after)}.`;
      return { kind: "moved", text: `${notice} ${this.banners.moved}` };
    }
    return notice;
  }
}

/** An answer to your help request (`{result, by}`: the seed's result and who answered), for people. */
export function describeHelpResult({ result, by }) {
  switch (result) {
    case "ignored": return `${by ?? "The host"} cannot come right now.`;
    case "busy": return "nobody is free to help right now; ask again later.";
    case "managerJoining": return `${by ?? "The host"} is joining your room.`;
    case "managerAlreadyInSubsession": return `${by ?? "The host"} is already in your room.`;
    default: return result;
  }
}
