// Caucus users as Chromium WebRTC peers, for test_media_chromium.py, test_media_matrix.py,
// test_media_loss.py and crossstack_peers.py (which a Swift test drives). Each user has its own
// WebSocket to `caucus serve` (the documented protocol: requests matched to replies by `id`,
// slot map frames kept) and, once started, one RTCPeerConnection negotiated once: its audio
// and video sent, then receive-only transceivers for the server's slots. Every receive slot is
// decoded as a person's browser would (a <video> element, Web Audio) and what it shows or sounds
// like is recognised against the test's palette, with when and what was measured (the tone's
// frequency, the frame's size), so the test can ask "what did each slot carry since t", and when
// each frame of a video slot was shown. The test drives it through `window.caucus`.
"use strict";

// Received audio is read through a 4096-point FFT (85 ms at 48 kHz, ~12 Hz a bin), every 100 ms.
const FFT_SIZE = 4096;
const AUDIO_READ_MS = 100;
// Below this the slot is silent (an empty slot, or the decoder's fading concealment).
const SILENCE_DB = -65;
const TONE_TOLERANCE_HZ = 20;
const COLOUR_TOLERANCE = 70;
// Synthetic video: a small canvas of one colour, redrawn at this rate so the capture keeps
// producing frames (a canvas that is never drawn again yields none). The fake camera is asked
// for FAKE_CAMERA_SIZE unless the test gives a size (the size of the picture it wrote).
const CANVAS_SIZE = [64, 48];
const CANVAS_FPS = 15;
const FAKE_CAMERA_SIZE = [160, 120];
// Recognitions older than this are forgotten: the test never looks further back.
const HISTORY_MS = 60000;
// When asked to, each video slot's framesDecoded (getStats) is read this often, and the moments
// it grew are kept: when frames were decoded, whether or not they were shown. The same for the
// user's own video's framesSent.
const DECODE_SAMPLE_MS = 25;

const audioContext = new AudioContext();

function recogniseTone(frequency, palette) {
  for (const [name, { tone }] of Object.entries(palette)) {
    if (Math.abs(tone - frequency) <= TONE_TOLERANCE_HZ) return name;
  }
  return `unknown tone ${Math.round(frequency)} Hz`;
}

function recogniseColour(mean, palette) {
  for (const [name, { colour }] of Object.entries(palette)) {
    if (colour.every((value, i) => Math.abs(value - mean[i]) <= COLOUR_TOLERANCE)) return name;
  }
  return `unknown colour ${mean.map(Math.round).join(",")}`;
}

/** What one receive slot (one transceiver, by mid) was recognised as, with when and what was
 *  measured: the tone's frequency (Hz) for audio, the frame's [width, height] for video (one
 *  entry per frame shown). */
class Reception {
  constructor(mid, kind) {
    this.mid = mid;
    this.kind = kind;
    this.seen = [];
    this.decoded = [];
    this.sampled = [];
  }

  /** A reading of framesDecoded at `at`, and whether it grew since the last. */
  noteSample(at, grew) {
    this.sampled.push(at);
    if (grew) this.decoded.push(at);
    for (const list of [this.sampled, this.decoded]) {
      while (list.length && list[0] < at - HISTORY_MS) list.shift();
    }
  }

  note(label, measure = null) {
    const now = performance.now();
    this.seen.push([now, label, measure]);
    while (this.seen.length && this.seen[0][0] < now - HISTORY_MS) this.seen.shift();
  }

  since(moment) {
    return [...new Set(this.seen.filter(([at]) => at >= moment).map(([, label]) => label))];
  }

  /** label -> what was measured of it since `moment`, in order. */
  measures(moment) {
    const measures = {};
    for (const [at, label, measure] of this.seen) {
      if (at >= moment) (measures[label] ??= []).push(measure);
    }
    return measures;
  }

  /** label -> when it was recognised since `moment`, in order. */
  labelTimes(moment) {
    const times = {};
    for (const [at, label] of this.seen) {
      if (at >= moment) (times[label] ??= []).push(at);
    }
    return times;
  }

  /** When each entry since `moment` was noted (for video: when each frame was shown). */
  times(moment) {
    return this.seen.filter(([at]) => at >= moment).map(([at]) => at);
  }
}

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

  // What is sent ---------------------------------------------------------------------------

  /** A sine of `tone` Hz from an oscillator, and a canvas of `colour` and `size`. */
  syntheticTracks(tone, colour, size) {
    const oscillator = audioContext.createOscillator();
    oscillator.frequency.value = tone;
    const gain = audioContext.createGain();
    gain.gain.value = 0.3;
    const destination = audioContext.createMediaStreamDestination();
    oscillator.connect(gain).connect(destination);
    oscillator.start();

    const canvas = document.createElement("canvas");
    [canvas.width, canvas.height] = size ?? CANVAS_SIZE;
    canvas.dataset.publisher = this.name;
    document.getElementById("peers").append(canvas);
    const context = canvas.getContext("2d");
    let frame = 0;
    const draw = () => {
      context.fillStyle = `rgb(${colour.join(",")})`;
      context.fillRect(0, 0, canvas.width, canvas.height);
      // One pixel that changes, so every frame differs from the last.
      context.fillStyle = `rgb(${frame++ % 256},0,0)`;
      context.fillRect(0, 0, 1, 1);
    };
    draw();
    this.timers.push(setInterval(draw, 1000 / CANVAS_FPS));
    return [destination.stream.getAudioTracks()[0], canvas.captureStream(CANVAS_FPS).getVideoTracks()[0]];
  }

  /** The browser's fake capture devices (the test points them at a tone and a colour of its own). */
  async fakeDeviceTracks(size) {
    const stream = await navigator.mediaDevices.getUserMedia({
      // No processing: echo cancellation, noise suppression and gain control would bend the tone.
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      video: { width: (size ?? FAKE_CAMERA_SIZE)[0], height: (size ?? FAKE_CAMERA_SIZE)[1], frameRate: CANVAS_FPS },
    });
    return [stream.getAudioTracks()[0], stream.getVideoTracks()[0]];
  }

  // Negotiation ---------------------------------------------------------------------------

  async startMedia({ audioSlots, videoSlots, source, tone, colour, size, sampleDecoding = false, sampleSending = false, tcpOnly = false, redundancy = true, transportCC = true, simulcast = null, publish = true }) {
    this.sampleDecoding = sampleDecoding;
    // A network that blocks UDP, as this browser sees it: the answer's UDP candidate is removed,
    // so ICE can only use the server's passive TCP candidate (RFC 6544).
    this.tcpOnly = tcpOnly;
    // A client without transport-wide congestion control: the offer the server reads leaves its
    // extension and feedback out, so the answer cannot negotiate them.
    this.transportCC = transportCC;
    this.framesSentAt = [];
    const [audio, video] = source === "fake-device" ? await this.fakeDeviceTracks(size) : this.syntheticTracks(tone, colour, size);
    this.sent = { audio, video, source };
    this.pc = new RTCPeerConnection({ bundlePolicy: "max-bundle" });
    this.countDescriptions();
    // A client that renegotiates whenever the browser asks: if anything after the first
    // exchange made Chromium want a new offer, it would be sent and counted.
    this.pc.onnegotiationneeded = () => {
      this.negotiationNeeded += 1;
      if (this.negotiated) this.negotiate();
    };
    this.pc.addTransceiver(audio, { direction: "sendonly" });
    // Simulcast: `simulcast` lists the encodings (`rid`, `scaleResolutionDownBy`) to send.
    this.pc.addTransceiver(video, simulcast ? { direction: "sendonly", sendEncodings: simulcast } : { direction: "sendonly" });
    for (let i = 0; i < audioSlots; i++) {
      const transceiver = this.pc.addTransceiver("audio", { direction: "recvonly" });
      // A receiver that does not offer redundant audio (RFC 2198), as some clients do not.
      if (!redundancy) {
        const codecs = RTCRtpReceiver.getCapabilities("audio").codecs.filter((codec) => codec.mimeType.toLowerCase() !== "audio/red");
        transceiver.setCodecPreferences(codecs);
      }
    }
    for (let i = 0; i < videoSlots; i++) this.pc.addTransceiver("video", { direction: "recvonly" });
    await this.negotiate();
    this.negotiated = true;
    if (sampleSending) this.sampleSent(this.pc.getSenders().find((sender) => sender.track === video));
    this.mids = this.pc.getTransceivers().map((t) => t.mid);
    for (const transceiver of this.pc.getTransceivers()) {
      if (transceiver.direction === "recvonly") this.receive(transceiver);
    }
    // A peer made again after a resume does not: what a user publishes outlives its peers.
    if (publish) await this.request("publish", { media: ["audio", "video"] });
  }

  async negotiate() {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    let offer = this.pc.localDescription.sdp;
    if (!this.transportCC) offer = offer.split("\r\n").filter((line) => !/transport-wide-cc|transport-cc/.test(line)).join("\r\n");
    const reply = await this.request("mediaOffer", { sdp: offer });
    const sdp = this.tcpOnly ? reply.sdp.split("\r\n").filter((line) => !/^a=candidate:\S+ \d+ udp /i.test(line)).join("\r\n") : reply.sdp;
    await this.pc.setRemoteDescription({ type: "answer", sdp });
  }

  /** What the browser's congestion controller allows itself to send (bit/s, the selected
   *  candidate pair's availableOutgoingBitrate), and what its video sender sends. */
  async sending() {
    const stats = await this.pc.getStats();
    const found = { availableOutgoingBitrate: null, bytesSent: 0, targetBitrate: null, layers: {} };
    for (const report of stats.values()) {
      if (report.type === "candidate-pair" && report.nominated && report.state === "succeeded") {
        found.availableOutgoingBitrate = report.availableOutgoingBitrate ?? null;
      }
      if (report.type === "outbound-rtp" && report.kind === "video") {
        found.bytesSent += report.bytesSent ?? 0;
        found.targetBitrate = report.targetBitrate ?? null;
        if (report.rid) found.layers[report.rid] = { bytesSent: report.bytesSent ?? 0, frameWidth: report.frameWidth ?? null, frameHeight: report.frameHeight ?? null };
      }
    }
    return found;
  }

  /** The transport ICE selected: the local candidate's protocol ("udp" or "tcp"), or null. */
  async selectedProtocol() {
    const stats = await this.pc.getStats();
    for (const report of stats.values()) {
      if (report.type === "candidate-pair" && report.nominated && report.state === "succeeded") {
        return stats.get(report.localCandidateId)?.protocol ?? null;
      }
    }
    return null;
  }

  countDescriptions() {
    const pc = this.pc;
    const setLocal = pc.setLocalDescription.bind(pc);
    const setRemote = pc.setRemoteDescription.bind(pc);
    pc.setLocalDescription = (description) => {
      this.descriptions.local.push(description?.type ?? "implicit");
      return setLocal(description);
    };
    pc.setRemoteDescription = (description) => {
      this.descriptions.remote.push(description.type);
      return setRemote(description);
    };
  }

  // What is received -----------------------------------------------------------------------

  receive(transceiver) {
    const track = transceiver.receiver.track;
    const reception = new Reception(transceiver.mid, track.kind);
    this.receptions.set(transceiver.mid, reception);
    if (track.kind === "video") {
      this.watch(track, reception);
      if (this.sampleDecoding) this.sampleDecodes(transceiver.receiver, reception);
    } else {
      this.hear(track, reception);
    }
  }

  /** Every decoded frame of the slot, drawn small, recognised by its mean colour; its size kept. */
  watch(track, reception) {
    const video = document.createElement("video");
    video.muted = true;
    video.autoplay = true;
    video.playsInline = true;
    video.dataset.peer = this.name;
    video.dataset.mid = reception.mid;
    video.srcObject = new MediaStream([track]);
    document.getElementById("peers").append(video);
    const canvas = document.createElement("canvas");
    canvas.width = 8;
    canvas.height = 6;
    const context = canvas.getContext("2d", { willReadFrequently: true });
    const onFrame = (_, frame) => {
      if (video.videoWidth > 0) {
        context.drawImage(video, 0, 0, canvas.width, canvas.height);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        const mean = [0, 0, 0];
        for (let i = 0; i < pixels.length; i += 4) for (let c = 0; c < 3; c++) mean[c] += pixels[i + c];
        reception.note(recogniseColour(mean.map((sum) => sum / (pixels.length / 4)), this.palette), [frame.width, frame.height]);
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    video.play().catch(() => {});
  }

  /** Notes each moment the sender's framesSent grew, read every DECODE_SAMPLE_MS. */
  sampleSent(sender) {
    let last = 0;
    let reading = false;
    this.timers.push(setInterval(async () => {
      if (reading) return;
      reading = true;
      try {
        for (const entry of (await sender.getStats()).values()) {
          if (entry.type === "outbound-rtp" && (entry.framesSent ?? 0) > last) {
            last = entry.framesSent;
            const now = performance.now();
            this.framesSentAt.push(now);
            while (this.framesSentAt.length && this.framesSentAt[0] < now - HISTORY_MS) this.framesSentAt.shift();
          }
        }
      } finally {
        reading = false;
      }
    }, DECODE_SAMPLE_MS));
  }

  /** Notes each moment the slot's framesDecoded grew, read every DECODE_SAMPLE_MS. */
  sampleDecodes(receiver, reception) {
    let last = 0;
    let reading = false;
    this.timers.push(setInterval(async () => {
      if (reading) return;
      reading = true;
      try {
        const at = performance.now();
        let grew = false;
        for (const entry of (await receiver.getStats()).values()) {
          if (entry.type === "inbound-rtp" && (entry.framesDecoded ?? 0) > last) {
            last = entry.framesDecoded;
            grew = true;
          }
        }
        reception.noteSample(at, grew);
      } finally {
        reading = false;
      }
    }, DECODE_SAMPLE_MS));
  }

  /** The slot's audio through an analyser: the FFT's peak, when not silent, names the tone (its
   *  frequency kept, placed between bins by a parabola through the peak's decibels). */
  hear(track, reception) {
    const stream = new MediaStream([track]);
    // Chromium feeds a remote track to Web Audio only while a media element plays it too.
    const element = document.createElement("audio");
    element.muted = true;
    element.srcObject = stream;
    element.dataset.peer = this.name;
    element.dataset.mid = reception.mid;
    document.getElementById("peers").append(element);
    element.play().catch(() => {});
    const analyser = audioContext.createAnalyser();
    analyser.fftSize = FFT_SIZE;
    analyser.smoothingTimeConstant = 0;
    audioContext.createMediaStreamSource(stream).connect(analyser);
    const spectrum = new Float32Array(analyser.frequencyBinCount);
    this.timers.push(setInterval(() => {
      analyser.getFloatFrequencyData(spectrum);
      let peak = 2;
      for (let i = 3; i < spectrum.length; i++) if (spectrum[i] > spectrum[peak]) peak = i;
      if (spectrum[peak] < SILENCE_DB) return;
      const [left, centre, right] = [spectrum[peak - 1], spectrum[peak], spectrum[peak + 1] ?? spectrum[peak]];
      const curvature = left - 2 * centre + right;
      const offset = curvature !== 0 && Number.isFinite(curvature) ? (0.5 * (left - right)) / curvature : 0;
      const frequency = ((peak + offset) * audioContext.sampleRate) / FFT_SIZE;
      reception.note(recogniseTone(frequency, this.palette), frequency);
    }, AUDIO_READ_MS));
  }

  // Reports ---------------------------------------------------------------------------------

  /** Per receive slot: what it carried since `moment` (and what was measured of it), who the
   *  slot map says fills it, and its inbound-rtp counters. */
  async report(moment) {
    const stats = {};
    if (this.pc) {
      for (const entry of (await this.pc.getStats()).values()) {
        if (entry.type === "inbound-rtp") {
          stats[entry.mid] = { packetsReceived: entry.packetsReceived, bytesReceived: entry.bytesReceived, framesDecoded: entry.framesDecoded ?? null };
        }
      }
    }
    const slotUsers = Object.fromEntries(this.slots.map((slot) => [slot.mid, slot.user ?? null]));
    const slots = [...this.receptions.values()].map((reception) => ({
      mid: reception.mid,
      kind: reception.kind,
      labels: reception.since(moment),
      measures: reception.measures(moment),
      labelTimes: reception.labelTimes(moment),
      user: slotUsers[reception.mid] ?? null,
      mapped: reception.mid in slotUsers,
      packetsReceived: stats[reception.mid]?.packetsReceived ?? 0,
      bytesReceived: stats[reception.mid]?.bytesReceived ?? 0,
    }));
    return { user: this.user, slots };
  }

  /** Per video receive slot: when each frame was shown since `moment` (requestVideoFrameCallback,
   *  the page's clock), when framesDecoded was read and when it was seen to grow (if sampled),
   *  who the slot map says fills it, and what getStats says of its decoding. */
  async frames(moment) {
    const stats = {};
    for (const entry of (await this.pc.getStats()).values()) {
      if (entry.type === "inbound-rtp" && entry.kind === "video") {
        stats[entry.mid] = {
          framesReceived: entry.framesReceived ?? 0,
          framesDecoded: entry.framesDecoded ?? 0,
          framesDropped: entry.framesDropped ?? 0,
          keyFramesDecoded: entry.keyFramesDecoded ?? 0,
          freezeCount: entry.freezeCount ?? 0,
          totalFreezesDuration: entry.totalFreezesDuration ?? 0,
          packetsReceived: entry.packetsReceived ?? 0,
          packetsLost: entry.packetsLost ?? 0,
          nackCount: entry.nackCount ?? 0,
          pliCount: entry.pliCount ?? 0,
          firCount: entry.firCount ?? 0,
          retransmittedPacketsReceived: entry.retransmittedPacketsReceived ?? 0,
        };
      }
    }
    const slotUsers = Object.fromEntries(this.slots.map((slot) => [slot.mid, slot.user ?? null]));
    return [...this.receptions.values()]
      .filter((reception) => reception.kind === "video")
      .map((reception) => ({ mid: reception.mid, user: slotUsers[reception.mid] ?? null, times: reception.times(moment), decoded: reception.decoded.filter((at) => at >= moment), sampled: reception.sampled.filter((at) => at >= moment), stats: stats[reception.mid] ?? null }));
  }

  /** Per audio receive slot: who the slot map says fills it, the codec of what arrives, and
   *  getStats' counters of what was received, lost and concealed. */
  async audio() {
    const slotUsers = Object.fromEntries(this.slots.map((slot) => [slot.mid, slot.user ?? null]));
    const stats = await this.pc.getStats();
    const slots = [];
    for (const entry of stats.values()) {
      if (entry.type !== "inbound-rtp" || entry.kind !== "audio") continue;
      slots.push({
        mid: entry.mid,
        user: slotUsers[entry.mid] ?? null,
        codec: stats.get(entry.codecId)?.mimeType ?? null,
        packetsReceived: entry.packetsReceived ?? 0,
        packetsLost: entry.packetsLost ?? 0,
        totalSamplesReceived: entry.totalSamplesReceived ?? 0,
        concealedSamples: entry.concealedSamples ?? 0,
        silentConcealedSamples: entry.silentConcealedSamples ?? 0,
      });
    }
    return slots;
  }

  /** How this peer negotiated, for the no-renegotiation checks. */
  negotiation() {
    return {
      descriptions: this.descriptions,
      mediaOffersSent: this.mediaOffersSent,
      negotiationNeeded: this.negotiationNeeded,
      signalingState: this.pc.signalingState,
      midsAtStart: this.mids,
      midsNow: this.pc.getTransceivers().map((t) => t.mid),
      directions: this.pc.getTransceivers().map((t) => t.currentDirection),
    };
  }

  /** Where the sent tracks come from, and what getStats says of them. */
  async sources() {
    const devices = await navigator.mediaDevices.enumerateDevices();
    const stats = [...(await this.pc.getStats()).values()];
    const describe = (track) => {
      const settings = track.getSettings();
      const mediaSource = stats.find((entry) => entry.type === "media-source" && entry.trackIdentifier === track.id);
      const sender = this.pc.getSenders().find((candidate) => candidate.track === track);
      const outbound = stats.find((entry) => entry.type === "outbound-rtp" && entry.mediaSourceId === mediaSource?.id);
      return {
        kind: track.kind,
        label: track.label,
        readyState: track.readyState,
        type: track.constructor.name,
        fromCanvas: typeof CanvasCaptureMediaStreamTrack !== "undefined" && track instanceof CanvasCaptureMediaStreamTrack,
        device: devices.find((device) => settings.deviceId && device.deviceId === settings.deviceId && device.kind === `${track.kind}input`)?.label ?? null,
        sending: Boolean(sender),
        mediaSource: mediaSource ? { totalAudioEnergy: mediaSource.totalAudioEnergy ?? null, frames: mediaSource.frames ?? null } : null,
        packetsSent: outbound?.packetsSent ?? 0,
      };
    };
    return { source: this.sent.source, audio: describe(this.sent.audio), video: describe(this.sent.video) };
  }

  close() {
    for (const timer of this.timers) clearInterval(timer);
    this.pc?.close();
    this.ws?.close();
  }
}

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
