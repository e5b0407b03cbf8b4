// What a user reports to the test: what each slot carried, its frames and audio counters, how
// it negotiated, where its sent tracks come from, and what its congestion controller allows.
"use strict";

Object.assign(Peer.prototype, {
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
  },

  /** Lowers the video sender's maxBitrate, then lifts it above what the camera's picture needs:
   *  a higher allocation than its estimate makes Chromium's congestion controller probe again.
   *  (Its first probes, at the call's start, can fail on a loaded machine; after that a sender
   *  as app-limited as a still picture's probes no more on its own.) */
  async reprobe() {
    const sender = this.pc.getSenders().find((candidate) => candidate.track?.kind === "video");
    if (!sender) return false;
    for (const maxBitrate of [200_000, 2_500_000]) {
      const parameters = sender.getParameters();
      parameters.encodings[0].maxBitrate = maxBitrate;
      await sender.setParameters(parameters);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return true;
  },

  /** The transport ICE selected: the local candidate's protocol ("udp" or "tcp"), or null. */
  async selectedProtocol() {
    const stats = await this.pc.getStats();
    for (const report of stats.values()) {
      if (report.type === "candidate-pair" && report.nominated && report.state === "succeeded") {
        return stats.get(report.localCandidateId)?.protocol ?? null;
      }
    }
    return null;
  },

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
  },

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
  },

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
  },

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
  },

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
  },
});
