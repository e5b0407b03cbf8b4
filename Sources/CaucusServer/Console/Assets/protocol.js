// The Caucus WebSocket protocol (docs/protocol.md): join, request/reply matched by id/re,
// events numbered by seq, and resume after a dropped connection.

/** A refusal from the server (code, name, message, and the seed's failure status). */
export class ProtocolError extends Error {
  constructor({ code, name, message, status, closeCode }) {
    super(message);
    this.code = code;
    this.name = name;
    this.status = status;
    // For a request the socket's close cut short: the close's code.
    this.closeCode = closeCode;
  }
  toString() {
    return `${this.code} ${this.name}: ${this.message}${this.status ? ` (${this.status})` : ""}`;
  }
}

// Close codes after which a resume cannot help (docs/protocol.md, "Close codes").
const FINAL_CLOSES = new Map([
  [4002, "The session ended."],
  [4003, "You were removed from the session."],
  [4004, "Your seat was taken over in another browser."],
  [4005, "You left the session."],
]);

// A first join's socket closed with this code: the server holds as many connections waiting to
// join from this address as it allows (a class behind one NAT opening the link together).
const CROWDED = 4009;
const CROWDED_RETRIES = 8;

/**
 * How long to wait before the join's next try after `retries` closes with 4009: from 200 ms,
 * doubling up to 3 s, each scaled by a random factor of 0.5–1.5 (`random` in [0, 1)) so that a
 * class closed together does not come back together. The SDK waits the same.
 */
export function crowdedRetryDelay(retries, random = Math.random()) {
  return Math.min(3000, 200 * 2 ** Math.min(retries, 16)) * (0.5 + random);
}

/**
 * One user's connection to one session. Dispatches DOM-style events:
 * `event` (detail: the frame `{seq, at, event}`), `snapshot` (detail: a snapshot that
 * replaces the state), `state` (detail: "connecting" | "connected" | "reconnecting" | "closed"),
 * `closed` (detail: a reason for people), `slots` (detail: the slot map's slots, after a mediaOffer),
 * `speakers` (detail: the slot map frame's `activeSpeakers`, when it has them).
 */
export class CaucusConnection extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.nextID = 1;
    this.pending = new Map();
    this.waiting = [];
    this.lastSeq = 0;
    this.secret = null;
    // The TURN servers, with this user's credentials, from the latest join or resume reply.
    this.iceServers = [];
    this.user = null;
    this.socket = null;
    this.state = "connecting";
    this.attempt = 0;
  }

  /** Opens the socket; resolves once it is open. */
  open() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.socket = socket;
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new ProtocolError({ code: 0, name: "connectionFailed", message: `Could not connect to ${this.url}.` }));
      socket.onmessage = (message) => this.receive(message.data);
      socket.onclose = (close) => this.closed(socket, close);
    });
  }

  /**
   * Joins a session on the open socket. May be retried after needPassword / passwordWrong.
   * A socket closed 4009 before the answer is opened again after `crowdedRetryDelay`, up to
   * `CROWDED_RETRIES` times; then the join fails with a message for people.
   */
  async join({ session, userName, token, password }) {
    const args = { session, userName, token };
    if (password) args.password = password;
    let result;
    for (let retries = 0; ; retries++) {
      try {
        result = await this.send("join", args);
        break;
      } catch (error) {
        if (error.closeCode !== CROWDED || this.leaving) throw error;
        if (retries === CROWDED_RETRIES) {
          throw new ProtocolError({ code: 0, name: "crowded", message: "Too many people on your network are joining at once: try again in a moment." });
        }
        await new Promise((resolve) => setTimeout(resolve, crowdedRetryDelay(retries)));
        await this.open();
      }
    }
    this.user = result.user;
    this.secret = result.secret;
    this.iceServers = result.iceServers ?? [];
    this.lastSeq = result.snapshot.seq;
    this.setState("connected");
    return result;
  }

  /**
   * Takes back a seat this tab held before a reload (`{secret, lastSeq}` saved with the
   * page's model at that `seq`): replays what was missed, or hands over a fresh snapshot.
   */
  async resumeSeat({ secret, lastSeq }) {
    this.secret = secret;
    this.lastSeq = lastSeq;
    this.setState("reconnecting");
    await this.open();
    let result;
    try {
      result = await this.send("resume", { secret, lastSeq });
    } catch (error) {
      // The page goes back to its landing (its caller says why): nothing is left waiting.
      if (error instanceof ProtocolError && error.name === "resumeRefused") this.refused(error);
      throw error;
    }
    this.user = result.user;
    this.iceServers = result.iceServers ?? [];
    if (result.snapshot) {
      this.lastSeq = result.snapshot.seq;
      this.dispatchEvent(new CustomEvent("snapshot", { detail: result.snapshot }));
    }
    this.setState("connected");
    for (const call of this.waiting.splice(0)) this.send(call.op, call.args).then(call.resolve, call.reject);
    return result;
  }

  /** Keeps trying to resume, as after a dropped connection. */
  reconnect() {
    this.setState("reconnecting");
    this.scheduleResume();
  }

  /** Sends a request; resolves with its result or rejects with a ProtocolError. */
  request(op, args = {}) {
    if (this.state === "reconnecting") {
      // As the SDK does: calls made while reconnecting wait for the resume.
      return new Promise((resolve, reject) => this.waiting.push({ op, args, resolve, reject }));
    }
    return this.send(op, args);
  }

  /** Resolves once the connection is connected (at once if it is); rejects if it closes. */
  whenConnected() {
    if (this.state === "connected") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = (event) => {
        if (event.detail !== "connected" && event.detail !== "closed") return;
        this.removeEventListener("state", listener);
        if (event.detail === "connected") resolve();
        else reject(new ProtocolError({ code: 0, name: "connectionLost", message: "The connection to the server closed." }));
      };
      this.addEventListener("state", listener);
    });
  }

  /**
   * The TURN servers for a new RTCPeerConnection: those of the last join or resume, or fresh
   * ones (getIceServers) when their credentials expire within a minute. The username's
   * first field is its expiry in Unix seconds (docs/protocol.md, getIceServers). While the
   * connection resumes (a reload's first moments, a dropped socket) it waits for the resume
   * reply: the servers known before it may be none at all (a reloaded page starts without any).
   */
  async currentIceServers() {
    await this.whenConnected();
    const expiry = Math.min(...this.iceServers.map((server) => Number(server.username.split(":")[0])));
    if (this.iceServers.length && !(expiry * 1000 - Date.now() > 60000)) {
      this.iceServers = (await this.request("getIceServers")).iceServers;
    }
    return this.iceServers;
  }

  leave(endSession = false) {
    this.leaving = true;
    return this.send("leave", endSession ? { endSession: true } : {});
  }

  send(op, args) {
    const id = this.nextID++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ProtocolError({ code: 0, name: "notConnected", message: "Not connected to the server." }));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, op, ...args }));
    });
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if ("re" in frame) {
      const waiter = this.pending.get(frame.re);
      if (!waiter) return;
      this.pending.delete(frame.re);
      if (frame.error) waiter.reject(new ProtocolError(frame.error));
      else waiter.resolve(frame.result);
      return;
    }
    if (frame.media && Array.isArray(frame.media.slots)) {
      this.dispatchEvent(new CustomEvent("slots", { detail: frame.media.slots }));
      // Only in the frames that change it: a frame without it leaves the list as it was.
      if (Array.isArray(frame.media.activeSpeakers)) this.dispatchEvent(new CustomEvent("speakers", { detail: frame.media.activeSpeakers }));
      return;
    }
    if (typeof frame.seq !== "number") return;
    // Events already in the snapshot we hold may still arrive: skip them.
    if (frame.seq <= this.lastSeq) return;
    this.lastSeq = frame.seq;
    this.dispatchEvent(new CustomEvent("event", { detail: frame }));
  }

  closed(socket, close) {
    if (socket !== this.socket) return;
    for (const waiter of this.pending.values()) {
      waiter.reject(new ProtocolError({
        code: 0, name: "connectionLost", message: "The connection closed before the server answered.", closeCode: close.code,
      }));
    }
    this.pending.clear();
    // A closed connection stays closed: its seat is gone (a refused resume) or given up.
    if (this.state === "closed") return;
    // A first join closed 4009 tries again by itself (`join`).
    if (close.code === CROWDED && !this.secret && !this.leaving) return;
    // A resume in progress retries by itself.
    if (this.state === "reconnecting") return;
    const final = FINAL_CLOSES.get(close.code);
    if (final || this.leaving || !this.secret) {
      this.setState("closed");
      this.dispatchEvent(new CustomEvent("closed", { detail: final ?? "The connection to the server closed." }));
      return;
    }
    this.setState("reconnecting");
    this.scheduleResume();
  }

  scheduleResume() {
    const delay = Math.min(5000, 250 * 2 ** this.attempt++);
    setTimeout(() => this.resume(), delay);
  }

  async resume() {
    try {
      await this.open();
      const result = await this.send("resume", { secret: this.secret, lastSeq: this.lastSeq });
      this.iceServers = result.iceServers ?? [];
      if (result.snapshot) {
        this.lastSeq = result.snapshot.seq;
        this.dispatchEvent(new CustomEvent("snapshot", { detail: result.snapshot }));
      }
      this.attempt = 0;
      this.setState("connected");
      for (const call of this.waiting.splice(0)) this.send(call.op, call.args).then(call.resolve, call.reject);
    } catch (error) {
      if (error instanceof ProtocolError && error.name === "resumeRefused") {
        this.refused(error);
        this.dispatchEvent(new CustomEvent("closed", { detail: "You were away too long and lost your place in the session." }));
        return;
      }
      if (this.state === "reconnecting") this.scheduleResume();
    }
  }

  /**
   * The seat is gone (its resume was refused): the connection closes for good. Its socket
   * closes now (nothing more goes on it: the server need not wait for its join deadline), and
   * the calls made while it reconnected fail with the refusal instead of waiting for ever.
   */
  refused(error) {
    this.setState("closed");
    this.socket?.close(1000);
    for (const call of this.waiting.splice(0)) call.reject(error);
  }

  setState(state) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: state }));
  }
}
