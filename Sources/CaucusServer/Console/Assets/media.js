// This user's audio and video (docs/protocol.md: mediaOffer, publish, the slot map): the
// microphone and camera from getUserMedia, one RTCPeerConnection negotiated once with the
// server's receive slots, and who fills each slot. A move, a pause or a mute changes only
// who fills the slots (the server says so in a slot map frame): no new offer, no new
// permission prompt. A reload makes a new offer, which replaces the server's peer. Who speaks
// is the server's word: the loudest speakers of this user's location, ranked from the audio
// levels their packets carry (the slot map frame's activeSpeakers), the same on every page.

// Receive slots: the server's default layout is 3 audio, 4 video and 1 screen share per user.
const AUDIO_SLOTS = 3;
const VIDEO_SLOTS = 4;

/** Why there is no camera or microphone, in words, with what still works. */
function describeMediaProblem(error, kinds) {
  const what = kinds === "audio" ? "microphone" : kinds === "video" ? "camera" : "camera and microphone";
  switch (error?.name) {
    case "NotAllowedError":
    case "SecurityError":
      return `The ${what} ${kinds ? "is" : "are"} blocked for this page: others cannot see or hear you, but you see and hear them and can chat. Allow them in the browser's site settings, then press Try again.`;
    case "NotFoundError":
    case "OverconstrainedError":
      return `No ${what} found: others cannot ${kinds === "video" ? "see" : "hear"} you, but you can follow and chat.`;
    case "NotReadableError":
      return `The ${what} ${kinds ? "is" : "are"} in use by another program: close it, then press Try again.`;
    default:
      return `The ${what} could not be opened (${error?.message ?? "unknown reason"}): you can still chat.`;
  }
}

export class MediaSession extends EventTarget {
  constructor(connection) {
    super();
    this.connection = connection;
    this.problem = null;
    this.micOn = true;
    this.cameraOn = true;
    this.screen = null;
    // mid -> {kind: "audio"|"video"|"screenShare", track, user}
    this.slots = new Map();
    // The users the server last listed as speaking in this user's location (this user too).
    this.speakers = new Set();
    this.audioElements = [];
    this.soundBlocked = false;
    this.starting = null;
    // Set by close(): what a negotiation still under way then obtains is let go, not kept.
    this.closed = false;
  }

  /** Asks for the devices (once per page) and negotiates; safe to call again after a refusal. */
  start() {
    this.starting ??= this.negotiate().finally(() => { this.starting = null; });
    return this.starting;
  }

  async openDevices() {
    const devices = navigator.mediaDevices;
    if (!devices?.getUserMedia) {
      this.problem = "This browser gives the page no camera or microphone (it needs https or localhost): you can still chat.";
      return null;
    }
    try {
      this.problem = null;
      return await devices.getUserMedia({ audio: true, video: { width: { ideal: 640 }, height: { ideal: 360 } } });
    } catch (both) {
      if (both?.name === "NotAllowedError" || both?.name === "SecurityError") {
        this.problem = describeMediaProblem(both);
        return null;
      }
      // One of the two may still be there: a laptop without a camera is common.
      for (const [kind, missing] of [["audio", "video"], ["video", "audio"]]) {
        try {
          const stream = await devices.getUserMedia({ [kind]: true });
          this.problem = describeMediaProblem(both, missing);
          return stream;
        } catch {
          // Try the other.
        }
      }
      this.problem = describeMediaProblem(both);
      return null;
    }
  }

  async negotiate() {
    this.changed();
    if (!this.local || this.problem) {
      for (const track of this.local?.getTracks() ?? []) track.stop();
      const opened = await this.openDevices();
      // The page left the session while the devices opened (a refused resume, a permission
      // prompt answered late): the camera and microphone go off again at once.
      if (this.closed) {
        for (const track of opened?.getTracks() ?? []) track.stop();
        return;
      }
      this.local = opened;
    }
    this.audioTrack = this.local?.getAudioTracks()[0] ?? null;
    this.videoTrack = this.local?.getVideoTracks()[0] ?? null;
    if (this.audioTrack) this.audioTrack.enabled = this.micOn;
    if (this.videoTrack) this.videoTrack.enabled = this.cameraOn;
    // On a network that lets through nothing but TCP to a TURN server, media goes by the
    // TURN servers the server named, with this user's own time-limited credentials.
    const iceServers = await this.connection.currentIceServers();
    if (this.closed) return;
    // An offer the server refuses with 7102 most likely sends from an SSRC another user of
    // the session sends from: the browser picks them at random, and a new RTCPeerConnection
    // picks new ones. So the page offers once more, as the SDK does (docs/sdk-media.md).
    let offered;
    try {
      offered = await this.offer(iceServers);
    } catch (error) {
      if (error?.name !== "mediaOfferRefused" || this.closed) throw error;
      offered = await this.offer(iceServers);
    }
    if (!offered) return;
    const { pc, receiving, reply } = offered;
    await pc.setRemoteDescription({ type: "answer", sdp: reply.sdp });
    const previous = this.slots;
    this.slots = new Map();
    for (const [kind, transceiver] of receiving) {
      this.slots.set(transceiver.mid, { kind, track: transceiver.receiver.track, user: previous.get(transceiver.mid)?.user ?? null });
      if (kind === "audio") this.play(transceiver.receiver.track);
    }
    if (this.pendingSlots) this.setSlots(this.pendingSlots);
    if (this.screen) await this.sendScreen.sender.replaceTrack(this.screen);
    await this.publish();
    this.changed();
  }

  /**
   * A new RTCPeerConnection (new SSRCs, new ICE credentials) with this user's sending sections
   * and receive slots, offered to the server: its answer, or null if another negotiation
   * replaced this one meanwhile.
   */
  async offer(iceServers) {
    this.closePeer();
    const pc = new RTCPeerConnection({ bundlePolicy: "max-bundle", rtcpMuxPolicy: "require", iceServers });
    this.pc = pc;
    this.sendAudio = pc.addTransceiver(this.audioTrack ?? "audio", { direction: "sendonly" });
    this.sendVideo = pc.addTransceiver(this.videoTrack ?? "video", { direction: "sendonly" });
    // The screen share's own sending section: a track is put in it when sharing starts.
    this.sendScreen = pc.addTransceiver("video", { direction: "sendonly" });
    const receiving = [];
    for (let i = 0; i < AUDIO_SLOTS; i++) receiving.push(["audio", pc.addTransceiver("audio", { direction: "recvonly" })]);
    for (let i = 0; i < VIDEO_SLOTS; i++) receiving.push(["video", pc.addTransceiver("video", { direction: "recvonly" })]);
    receiving.push(["screenShare", pc.addTransceiver("video", { direction: "recvonly" })]);
    await pc.setLocalDescription(await pc.createOffer());
    // The slot map for this offer may arrive before its answer is applied: kept until then.
    this.pendingSlots = null;
    const screenShareMids = [this.sendScreen.mid, receiving.at(-1)[1].mid];
    const reply = await this.connection.request("mediaOffer", { sdp: pc.localDescription.sdp, screenShareMids });
    return this.pc === pc ? { pc, receiving, reply } : null;
  }

  /** Every audio slot plays, whoever fills it: the server sends only the people here. */
  play(track) {
    const element = document.createElement("audio");
    element.autoplay = true;
    element.srcObject = new MediaStream([track]);
    element.dataset.testid = "slot-audio";
    document.body.append(element);
    this.audioElements.push(element);
    element.play().catch(() => {
      // Autoplay refused (a reload has had no click yet): a button turns the sound on.
      this.soundBlocked = true;
      this.changed();
    });
  }

  async enableSound() {
    await Promise.all(this.audioElements.map((element) => element.play().catch(() => {})));
    this.soundBlocked = this.audioElements.some((element) => element.paused);
    this.changed();
  }

  /** What this user publishes: what it has and has not turned off. */
  get publishing() {
    const media = [];
    if (this.audioTrack && this.micOn) media.push("audio");
    if (this.videoTrack && this.cameraOn) media.push("video");
    if (this.screen) media.push("screenShare");
    return media;
  }

  async publish() {
    try {
      await this.connection.request("publish", { media: this.publishing });
    } catch (error) {
      // After a reload the server still has what this user published: nothing to change.
      if (error?.name !== "mediaUnchanged") throw error;
    }
  }

  /**
   * A host or manager turned part of this user's media off (muteUser: a mediaChanged with
   * `by`): it goes off here too, so the buttons say so and the next publish does not turn it
   * back on. Only this user turns it on again.
   */
  mutedByOther(publishing) {
    if (!publishing.includes("audio") && this.micOn) {
      this.micOn = false;
      if (this.audioTrack) this.audioTrack.enabled = false;
    }
    if (!publishing.includes("video") && this.cameraOn) {
      this.cameraOn = false;
      if (this.videoTrack) this.videoTrack.enabled = false;
    }
    if (!publishing.includes("screenShare") && this.screen) {
      this.screen.stop();
      this.screen = null;
      this.sendScreen?.sender.replaceTrack(null);
    }
    this.changed();
  }

  async toggleMicrophone() {
    this.micOn = !this.micOn;
    if (this.audioTrack) this.audioTrack.enabled = this.micOn;
    this.changed();
    await this.publish();
  }

  async toggleCamera() {
    this.cameraOn = !this.cameraOn;
    if (this.videoTrack) this.videoTrack.enabled = this.cameraOn;
    this.changed();
    await this.publish();
  }

  async toggleScreen() {
    if (this.screen) return this.stopScreen();
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    this.screen = stream.getVideoTracks()[0];
    this.screen.addEventListener("ended", () => this.stopScreen());
    await this.sendScreen?.sender.replaceTrack(this.screen);
    this.changed();
    await this.publish();
  }

  async stopScreen() {
    if (!this.screen) return;
    this.screen.stop();
    this.screen = null;
    await this.sendScreen?.sender.replaceTrack(null);
    this.changed();
    await this.publish();
  }

  /** The server's slot map frame: who fills which receive slot now. */
  setSlots(slots) {
    this.pendingSlots = slots;
    for (const slot of slots) {
      const known = this.slots.get(slot.mid);
      if (known) known.user = slot.user ?? null;
    }
    this.changed();
  }

  /** The track of `user`'s camera (or screen share) as received here, if a slot carries it. */
  trackOf(user, kind = "video") {
    for (const slot of this.slots.values()) if (slot.kind === kind && slot.user === user) return slot.track;
    return null;
  }

  /** Who shares a screen into this user's screen slot, with its track. */
  get sharedScreen() {
    for (const slot of this.slots.values()) if (slot.kind === "screenShare" && slot.user != null) return { user: slot.user, track: slot.track };
    return null;
  }

  /** Whether the server lists `user` among the speakers of this user's location. */
  speaking(user) { return this.speakers.has(user); }

  /** The slot map frame's `activeSpeakers`: the list holds until a frame brings another. */
  setSpeakers(users) {
    const next = new Set(users);
    if (next.size === this.speakers.size && [...next].every((user) => this.speakers.has(user))) return;
    this.speakers = next;
    this.dispatchEvent(new CustomEvent("speakers"));
  }

  /** This user changed location: the old one's speakers are not the new one's (its list, if
   * it has one, comes with the next slot map frame). */
  clearSpeakers() { this.setSpeakers([]); }

  /** For the browser tests: what each filled slot receives, per user. */
  async report() {
    const stats = this.pc ? [...(await this.pc.getStats()).values()] : [];
    const slots = [...this.slots].map(([mid, slot]) => {
      const inbound = stats.find((entry) => entry.type === "inbound-rtp" && entry.mid === mid);
      return {
        mid, kind: slot.kind, user: slot.user,
        audioLevel: inbound?.audioLevel ?? null, totalAudioEnergy: inbound?.totalAudioEnergy ?? null,
        packetsReceived: inbound?.packetsReceived ?? 0, framesDecoded: inbound?.framesDecoded ?? null,
      };
    });
    return { slots, publishing: this.publishing, problem: this.problem, connection: this.pc?.connectionState ?? null };
  }

  changed() { this.dispatchEvent(new CustomEvent("change")); }

  closePeer() {
    for (const element of this.audioElements) element.remove();
    this.audioElements = [];
    this.pc?.close();
    this.pc = null;
  }

  close() {
    this.closed = true;
    this.closePeer();
    for (const track of this.local?.getTracks() ?? []) track.stop();
    this.screen?.stop();
    this.local = null;
    this.changed();
  }
}
