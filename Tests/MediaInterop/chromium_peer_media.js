// What a user sends and how its one peer connection is negotiated: its audio and video (a
// synthetic tone and canvas, or the browser's fake capture devices), then receive-only
// transceivers for the server's slots, all in one offer.
"use strict";

// Synthetic video: a small canvas of one colour, redrawn at this rate so the capture keeps
// producing frames (a canvas that is never drawn again yields none). The fake camera is asked
// for FAKE_CAMERA_SIZE unless the test gives a size (the size of the picture it wrote).
const CANVAS_SIZE = [64, 48];
const CANVAS_FPS = 15;
const FAKE_CAMERA_SIZE = [160, 120];

Object.assign(Peer.prototype, {
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
  },

  /** The browser's fake capture devices (the test points them at a tone and a colour of its own). */
  async fakeDeviceTracks(size) {
    const stream = await navigator.mediaDevices.getUserMedia({
      // No processing: echo cancellation, noise suppression and gain control would bend the tone.
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      video: { width: (size ?? FAKE_CAMERA_SIZE)[0], height: (size ?? FAKE_CAMERA_SIZE)[1], frameRate: CANVAS_FPS },
    });
    return [stream.getAudioTracks()[0], stream.getVideoTracks()[0]];
  },

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
  },

  async negotiate() {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    let offer = this.pc.localDescription.sdp;
    if (!this.transportCC) offer = offer.split("\r\n").filter((line) => !/transport-wide-cc|transport-cc/.test(line)).join("\r\n");
    const reply = await this.request("mediaOffer", { sdp: offer });
    const sdp = this.tcpOnly ? reply.sdp.split("\r\n").filter((line) => !/^a=candidate:\S+ \d+ udp /i.test(line)).join("\r\n") : reply.sdp;
    await this.pc.setRemoteDescription({ type: "answer", sdp });
  },

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
  },
});
