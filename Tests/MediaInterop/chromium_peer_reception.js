// What a user receives: every receive slot decoded as a person's browser would (a <video>
// element, Web Audio) and what it shows or sounds like recognised against the test's palette,
// with when and what was measured; when frames were decoded, and when the user's own were sent.
"use strict";

// Received audio is read through a 4096-point FFT (85 ms at 48 kHz, ~12 Hz a bin), every 100 ms.
const FFT_SIZE = 4096;
const AUDIO_READ_MS = 100;
// Below this the slot is silent (an empty slot, or the decoder's fading concealment).
const SILENCE_DB = -65;
const TONE_TOLERANCE_HZ = 20;
const COLOUR_TOLERANCE = 70;
// Recognitions older than this are forgotten: the test never looks further back.
const HISTORY_MS = 60000;
// When asked to, each video slot's framesDecoded (getStats) is read this often, and the moments
// it grew are kept: when frames were decoded, whether or not they were shown. The same for the
// user's own video's framesSent.
const DECODE_SAMPLE_MS = 25;

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

Object.assign(Peer.prototype, {
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
  },

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
  },

  /** Reads `source`'s stats every DECODE_SAMPLE_MS, one read at a time: `read(stats, at)`,
   * `at` being when the read began. */
  pollStats(source, read) {
    let reading = false;
    this.timers.push(setInterval(async () => {
      if (reading) return;
      reading = true;
      try {
        const at = performance.now();
        read(await source.getStats(), at);
      } finally {
        reading = false;
      }
    }, DECODE_SAMPLE_MS));
  },

  /** Notes each moment the sender's framesSent grew, read every DECODE_SAMPLE_MS. */
  sampleSent(sender) {
    let last = 0;
    this.pollStats(sender, (stats) => {
      for (const entry of stats.values()) {
        if (entry.type === "outbound-rtp" && (entry.framesSent ?? 0) > last) {
          last = entry.framesSent;
          const now = performance.now();
          this.framesSentAt.push(now);
          while (this.framesSentAt.length && this.framesSentAt[0] < now - HISTORY_MS) this.framesSentAt.shift();
        }
      }
    });
  },

  /** Notes each moment the slot's framesDecoded grew, read every DECODE_SAMPLE_MS. */
  sampleDecodes(receiver, reception) {
    let last = 0;
    this.pollStats(receiver, (stats, at) => {
      let grew = false;
      for (const entry of stats.values()) {
        if (entry.type === "inbound-rtp" && (entry.framesDecoded ?? 0) > last) {
          last = entry.framesDecoded;
          grew = true;
        }
      }
      reception.noteSample(at, grew);
    });
  },

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
  },
});
