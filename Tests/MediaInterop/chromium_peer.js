// Caucus users as Chromium WebRTC peers, for test_media_chromium.py, test_media_matrix.py,
// test_media_loss.py and crossstack_peers.py (which a Swift test drives). Each user has its own
// WebSocket to `caucus serve` (the documented protocol: requests matched to replies by `id`,
// slot map frames kept) and, once started, one RTCPeerConnection negotiated once: its audio
// and video sent, then receive-only transceivers for the server's slots. Every receive slot is
// decoded as a person's browser would (a <video> element, Web Audio) and what it shows or sounds
// like is recognised against the test's palette, with when and what was measured (the tone's
// frequency, the frame's size), so the test can ask "what did each slot carry since t", and when
// each frame of a video slot was shown. The test drives it through `window.caucus`.
// The user itself is chromium_peer_user.js, with chromium_peer_media.js (what it sends, and
// its negotiation), chromium_peer_reception.js (what it receives and recognises) and
// chromium_peer_reports.js (what it tells the test).
"use strict";

window.caucus = {
  peers: new Map(),
  now: () => performance.now(),
  async join(options) {
    if (audioContext.state !== "running") await audioContext.resume();
    const peer = new Peer(options);
    this.peers.set(options.name, peer);
    return (await peer.join()).user;
  },
  startMedia(name, options) {
    return this.peers.get(name).startMedia(options);
  },
  request(name, op, args) {
    return this.peers.get(name).request(op, args);
  },
  resume(name, wsURL, options) {
    return this.peers.get(name).resume(wsURL, options);
  },
  selectedProtocol(name) {
    return this.peers.get(name).selectedProtocol();
  },
  async report(moment) {
    const report = { now: performance.now(), audioContext: audioContext.state, peers: {} };
    for (const [name, peer] of this.peers) report.peers[name] = await peer.report(moment);
    return report;
  },
  frames(name, moment) {
    return this.peers.get(name).frames(moment);
  },
  audio(name) {
    return this.peers.get(name).audio();
  },
  sending(name) {
    return this.peers.get(name).sending();
  },
  reprobe(name) {
    return this.peers.get(name).reprobe();
  },
  /** `name`'s ICE username fragment, which its connectivity checks carry (a relay knows it by it). */
  ufrag(name) {
    return /a=ice-ufrag:(\S+)/.exec(this.peers.get(name).pc.localDescription.sdp)[1];
  },
  /** When `name`'s video frames were sent since `moment` (if it samples sending). */
  sent(name, moment) {
    return this.peers.get(name).framesSentAt.filter((at) => at >= moment);
  },
  negotiation() {
    return Object.fromEntries([...this.peers].map(([name, peer]) => [name, peer.negotiation()]));
  },
  async sources() {
    const sources = {};
    for (const [name, peer] of this.peers) sources[name] = await peer.sources();
    return sources;
  },
  close() {
    for (const peer of this.peers.values()) peer.close();
  },
};
