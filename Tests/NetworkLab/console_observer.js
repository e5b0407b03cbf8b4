// What the web console's user receives, recognised as a person would notice it: every receive
// slot of the console's own peer (window.caucusConsole.media.slots) decoded in a <video> element
// or through Web Audio, its colour or tone matched against the test's palette, and kept with
// the time (Date.now(), which the test's clock shares) and the user the slot map puts there.
// Installed in the page by the network lab's test (execute_script with the palette).
(() => {
  const palette = arguments[0];
  const FFT_SIZE = 4096;
  const SILENCE_DB = -65;
  const TONE_TOLERANCE_HZ = 20;
  const COLOUR_TOLERANCE = 70;
  const HISTORY_MS = 120000;
  const media = window.caucusConsole.media;
  const seen = []; // [at, kind, mid, user, label]
  const watched = new Map(); // mid -> {track, stop}
  const audioContext = new AudioContext();

  const recogniseTone = (frequency) =>
    Object.entries(palette).find(([, { tone }]) => Math.abs(tone - frequency) <= TONE_TOLERANCE_HZ)?.[0] ?? `unknown tone ${Math.round(frequency)} Hz`;
  const recogniseColour = (mean) =>
    Object.entries(palette).find(([, { colour }]) => colour.every((value, i) => Math.abs(value - mean[i]) <= COLOUR_TOLERANCE))?.[0]
      ?? `unknown colour ${mean.map(Math.round).join(",")}`;

  function note(kind, mid, label) {
    const at = Date.now();
    seen.push([at, kind, mid, media.slots.get(mid)?.user ?? null, label]);
    while (seen.length && seen[0][0] < at - HISTORY_MS) seen.shift();
  }

  function watchVideo(mid, track) {
    const video = document.createElement("video");
    video.muted = true;
    video.autoplay = true;
    video.playsInline = true;
    video.srcObject = new MediaStream([track]);
    video.style.cssText = "position:fixed;left:0;top:0;width:8px;height:6px;opacity:0;pointer-events:none";
    document.body.append(video);
    const canvas = document.createElement("canvas");
    canvas.width = 8;
    canvas.height = 6;
    const context = canvas.getContext("2d", { willReadFrequently: true });
    let stopped = false;
    const onFrame = () => {
      if (stopped) return;
      if (video.videoWidth > 0) {
        context.drawImage(video, 0, 0, canvas.width, canvas.height);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        const mean = [0, 0, 0];
        for (let i = 0; i < pixels.length; i += 4) for (let c = 0; c < 3; c++) mean[c] += pixels[i + c];
        note("video", mid, recogniseColour(mean.map((sum) => sum / (pixels.length / 4))));
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    return () => { stopped = true; video.remove(); };
  }

  function hearAudio(mid, track) {
    const source = audioContext.createMediaStreamSource(new MediaStream([track]));
    const analyser = audioContext.createAnalyser();
    analyser.fftSize = FFT_SIZE;
    analyser.smoothingTimeConstant = 0;
    source.connect(analyser);
    const bins = new Float32Array(analyser.frequencyBinCount);
    const timer = setInterval(() => {
      analyser.getFloatFrequencyData(bins);
      let peak = 1;
      for (let i = 2; i < bins.length; i++) if (bins[i] > bins[peak]) peak = i;
      if (bins[peak] < SILENCE_DB) return;
      note("audio", mid, recogniseTone((peak * audioContext.sampleRate) / FFT_SIZE));
    }, 100);
    return () => { clearInterval(timer); source.disconnect(); };
  }

  // A renegotiation (a reload of the peer) brings new tracks: follow the slots as they are.
  function follow() {
    for (const [mid, slot] of media.slots) {
      if (slot.kind === "screenShare" || watched.get(mid)?.track === slot.track) continue;
      watched.get(mid)?.stop();
      const stop = slot.kind === "video" ? watchVideo(mid, slot.track) : hearAudio(mid, slot.track);
      watched.set(mid, { track: slot.track, stop });
    }
  }
  follow();
  setInterval(follow, 500);
  audioContext.resume();

  window.labObserver = {
    /** Per kind, label -> times; per slot, its kind, its user's name now and the labels heard. */
    report(since) {
      const names = new Map([...window.caucusConsole.model.users.values()].map((user) => [user.id, user.name]));
      const kinds = { audio: {}, video: {} };
      const slots = {};
      for (const [mid, slot] of media.slots) {
        if (slot.kind !== "screenShare") slots[mid] = { kind: slot.kind, user: slot.user, name: names.get(slot.user) ?? null, labels: [] };
      }
      for (const [at, kind, mid, , label] of seen) {
        if (at < since) continue;
        (kinds[kind][label] ??= []).push(at);
        if (slots[mid] && !slots[mid].labels.includes(label)) slots[mid].labels.push(label);
      }
      return { kinds, slots, user: window.caucusConsole.model.you, audioState: audioContext.state };
    },
    /** The selected candidate pair: the local candidate's type and protocol (tcp for ICE-TCP),
     * for a relayed one how it reaches the TURN server (udp, tcp, tls) and which URL; the remote's. */
    async path() {
      const stats = await media.pc.getStats();
      let pair = null;
      stats.forEach((entry) => { if (entry.type === "transport" && entry.selectedCandidatePairId) pair = stats.get(entry.selectedCandidatePairId); });
      const local = pair && stats.get(pair.localCandidateId);
      const remote = pair && stats.get(pair.remoteCandidateId);
      return local ? { localType: local.candidateType, localTransport: local.protocol, relayProtocol: local.relayProtocol ?? null, url: local.url ?? null,
                       remote: `${remote.address}:${remote.port}`, remoteTransport: remote.protocol } : null;
    },
  };
})();
