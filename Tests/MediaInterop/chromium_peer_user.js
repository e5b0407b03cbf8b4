// A Caucus user of the page (chromium_peer.js): its own WebSocket to `caucus serve`, spoken to
// in the documented protocol (requests matched to replies by `id`, slot map frames kept), and
// taking its seat back after a restart. Its media, what it recognises and what it reports are
// added to Peer by chromium_peer_media.js, chromium_peer_reception.js and chromium_peer_reports.js:
// the page is opened from a file, where Chromium refuses ES modules, so these are classic
// scripts sharing the page's globals, loaded in that order (chromium_peer.html).
"use strict";

// One for the page: every user's synthetic tone and every received slot's analyser.
const audioContext = new AudioContext();

class Peer {
  constructor({ name, wsURL, session, token, role, palette }) {
    Object.assign(this, { name, wsURL, session, token, role, palette });
    this.nextId = 1;
    this.replies = new Map();
    this.slots = [];
    this.mediaOffersSent = 0;
    this.receptions = new Map();
    this.timers = [];
    // Every description applied, by kind and type, and every negotiationneeded.
    this.descriptions = { local: [], remote: [] };
    this.negotiationNeeded = 0;
    this.negotiated = false;
  }

  // Signalling ---------------------------------------------------------------------------

  async openSocket() {
    this.ws = new WebSocket(this.wsURL);
    await new Promise((resolve, reject) => {
      this.ws.onopen = resolve;
      this.ws.onerror = () => reject(new Error(`${this.name}: the WebSocket did not open`));
    });
    this.ws.onmessage = (message) => this.read(JSON.parse(message.data));
  }

  async join() {
    await this.openSocket();
    const reply = await this.request("join", { session: this.session, userName: this.name, token: this.token, protocol: 1 });
    this.user = reply.user;
    this.secret = reply.secret;
    return reply;
  }

  /** Takes the seat back on a new WebSocket to `wsURL` (as after a server restart) and makes a
   *  new peer connection with `options` (startMedia's): a new offer; returns once it connects. */
  async resume(wsURL, options) {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.pc?.close();
    this.ws?.close();
    this.wsURL = wsURL;
    await this.openSocket();
    await this.request("resume", { secret: this.secret, lastSeq: 0, protocol: 1 });
    this.negotiated = false;
    await this.startMedia(options);
    if (this.pc.connectionState !== "connected") {
      await new Promise((resolve) => {
        this.pc.addEventListener("connectionstatechange", () => {
          if (this.pc.connectionState === "connected") resolve();
        });
      });
    }
  }

  read(frame) {
    if ("re" in frame && this.replies.has(frame.re)) {
      const { resolve } = this.replies.get(frame.re);
      this.replies.delete(frame.re);
      resolve(frame);
    } else if ("media" in frame) {
      this.slots = frame.media.slots;
    }
  }

  async request(op, args = {}) {
    const id = this.nextId++;
    const reply = new Promise((resolve) => this.replies.set(id, { resolve }));
    if (op === "mediaOffer") this.mediaOffersSent += 1;
    this.ws.send(JSON.stringify({ id, op, ...args }));
    const frame = await reply;
    if (frame.error) throw new Error(`${this.name}: ${op} refused: ${JSON.stringify(frame.error)}`);
    return frame.result ?? {};
  }

  close() {
    for (const timer of this.timers) clearInterval(timer);
    this.pc?.close();
    this.ws?.close();
  }
}
