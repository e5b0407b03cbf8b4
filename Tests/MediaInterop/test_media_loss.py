"""Video through a lossy network: every datagram between the peers and `caucus serve` passes a
relay (lossy_relay.py) that drops at random, each way, or blacks out. The server binds 127.0.0.1
and announces 127.0.0.2 on the same port, where the relay listens.

Two publishers, a Chromium user (Pia, a canvas at 15 fps, in a headless page) and an aiortc user
(Abe, 15 fps too), and one subscriber, a Chromium user (Sol) in the same page, so both
Chromium → Chromium and aiortc → Chromium are measured at once, in the subscribing page: the
moments each slot's `framesDecoded` (getStats, read every 25 ms) grew. Video is **frozen** while
no new frame has been decoded for 200 ms: every gap between decoded frames longer than that
counts as frozen, whole, except where the page itself did not read getStats for longer than that
(a starved machine: nobody looked, and that share is printed). Printed beside it, not asserted: the same from the moments frames were
shown (requestVideoFrameCallback; the compositor also drops frames decoded together when the
machine is busy), Chromium's own freeze counters, and the same measure of the publisher's own
sending (Chromium's outbound framesSent, aiortc's frames handed to its encoder): on a starved
machine a source stalls too, and that is no loss's doing. Asserted here:

- at 5 % random loss each way, video frozen at most 15 % of a 20 s window. The product's target
  is 5 %, and quiet-machine runs meet it (docs/benchmarks.md); but a loaded machine alone adds
  up to 10 points (frozen video at 0 % loss, the sources' own gaps), and the suite runs on
  shared machines, so the suite asserts what loss repair gives even there — without repair it
  is about 90 % — and `CAUCUS_LOSS_FROZEN_AT_MOST=0.05` asserts the target itself;
- repairs reach Chromium on the slot's RTX stream (its `retransmittedPacketsReceived`, which the
  specification leaves out unless RTX was negotiated, grows at 5 % loss);
- after a 1 s blackout (everything dropped, both ways), the first newly decoded frame within 1 s
  of its end.

Figures at other losses, for docs/benchmarks.md: `CAUCUS_LOSS_FIGURES=0,5,10,20 python3 -m
unittest test_media_loss.MediaLossTests.test_figures` prints them (skipped without the
variable). Chromium's own counters (inbound-rtp freezeCount, totalFreezesDuration, nackCount,
pliCount, packetsLost) are printed beside them."""

import asyncio
import os
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from chromium_page import PAGE, ServerAndBrowser, browser_log, call  # noqa: E402
from lossy_relay import BehindLossyRelay  # noqa: E402
from media_measures import FREEZE_MS, frozen_fraction, gaps  # noqa: E402
from media_peers import Peer  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

# Both publishers send 15 frames a second: one frame late or missing is a 133 ms gap, no freeze.
VIDEO_RATE = 15
MEASURE_SECONDS = 20
LOSS = 0.05
# A window without loss first, printed beside the figures: what this machine's load alone costs.
BASELINE_SECONDS = 8
FROZEN_AT_MOST = float(os.environ.get("CAUCUS_LOSS_FROZEN_AT_MOST", "0.15"))
BLACKOUT_SECONDS = 1.0
BACK_WITHIN_MS = 1000
# After a blackout, how long to look for the video coming back (a hang guard, not a target).
RECOVERY_WATCH_SECONDS = 6
CONVERGE_SECONDS = 25
POLL_SECONDS = 0.3
SEED = 22

PUBLISHERS = {
    "Pia": {"stack": "Chromium", "tone": 600, "colour": [220, 40, 40], "size": [128, 96]},
    "Abe": {"stack": "aiortc", "tone": 900, "colour": [40, 40, 220], "size": [96, 64]},
}
SUBSCRIBER = "Sol"
PALETTE = {**PUBLISHERS, SUBSCRIBER: {"tone": 1300, "colour": [40, 200, 40], "size": [64, 48]}}


class MediaLossTests(BehindLossyRelay, ServerAndBrowser, AsyncioTestCase):
    fixtures_prefix = "caucus-loss-"
    relay_seed = SEED

    async def asyncSetUp(self):
        self.relay.set_loss(0, 0)
        self.peers = []
        await self.start(session=self.id().rsplit(".", 1)[-1].replace("_", "-"))

    async def asyncTearDown(self):
        await self.page("window.caucus.close()")
        for peer in self.peers:
            await peer.close()

    async def page(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def start(self, session):
        """Pia and Sol in the page, Abe on aiortc; only Sol receives (two video slots), and it
        comes to decode both publishers with no loss."""
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        palette = {name: {"tone": look["tone"], "colour": look["colour"]} for name, look in PALETTE.items()}
        self.users = {}
        for name in ("Pia", SUBSCRIBER):
            options = {"name": name, "wsURL": ws_url, "session": session, "token": self.server.token(session, "participant", name), "role": "participant", "palette": palette}
            self.users[name] = await self.page("window.caucus.join(args[0])", options)
        abe = Peer(self.server, session, "Abe", "participant", PALETTE["Abe"]["tone"], PALETTE["Abe"]["colour"],
                   {name: (look["tone"], tuple(look["colour"])) for name, look in PALETTE.items()}, size=tuple(PALETTE["Abe"]["size"]), rate=VIDEO_RATE)
        self.peers.append(abe)
        await abe.join()
        self.users["Abe"] = abe.user
        self.names = {user: name for name, user in self.users.items()}
        for name, slots in (("Pia", 0), (SUBSCRIBER, len(PUBLISHERS))):
            look = PALETTE[name]
            options = {"audioSlots": 0, "videoSlots": slots, "source": "synthetic", "tone": look["tone"], "colour": look["colour"], "size": look["size"],
                       "sampleDecoding": name == SUBSCRIBER, "sampleSending": name == "Pia"}
            await self.page("window.caucus.startMedia(args[0], args[1])", name, options)
        await abe.start_media(0, 0)

        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            now = await self.page("window.caucus.now()")
            report = await self.page("window.caucus.report(args[0])", now - 1000)
            seen = {label for slot in report["peers"][SUBSCRIBER]["slots"] for label in slot["labels"]}
            self.decoding_before_loss = {name: name in seen for name in PUBLISHERS}
            if all(self.decoding_before_loss.values()) or time.monotonic() > deadline:
                break
            await asyncio.sleep(POLL_SECONDS)

    async def frames(self, since):
        """publisher -> the slot's decoded and shown frame times since `since` and Chromium's
        counters for it."""
        slots = await self.page("window.caucus.frames(args[0], args[1])", SUBSCRIBER, since)
        return {self.names.get(slot["user"], slot["user"]): slot for slot in slots if slot["user"] is not None}

    async def measure(self, loss, seconds=MEASURE_SECONDS):
        """At `loss` each way for `seconds`: per publisher, the frozen fraction and Chromium's
        counters over the window."""
        self.relay.set_loss(loss, loss)
        # Let the loss take hold before the window opens.
        await asyncio.sleep(1)
        counts_before = self.relay.counts()
        start = await self.page("window.caucus.now()")
        start_here = time.monotonic()
        before = await self.frames(start)
        await asyncio.sleep(seconds)
        end = await self.page("window.caucus.now()")
        end_here = time.monotonic()
        after = await self.frames(start)
        # How the sources went: a frame the publisher never sent is no fault of the network's.
        sent = {"Pia": await self.page("window.caucus.sent(args[0], args[1])", "Pia", start)}
        source_frozen = {"Pia": frozen_fraction(sent["Pia"], start, end)}
        abe_sent = [at * 1000 for at in self.peers[0].video_track.sent_at]
        source_frozen["Abe"] = frozen_fraction(abe_sent, start_here * 1000, end_here * 1000)
        counts_after = self.relay.counts()
        self.relay.set_loss(0, 0)
        figures = {}
        for name in PUBLISHERS:
            slot = after.get(name)
            if slot is None:
                figures[name] = {"frozen": 1.0, "decoded": 0, "note": "in no slot"}
                continue
            # When the page was too busy to read getStats for longer than a freeze, nobody can say.
            blind = gaps(slot["sampled"], start, end)
            figure = {
                "frozen": round(frozen_fraction(slot["decoded"], start, end, blind), 4),
                "unobserved": round(sum(b - a for a, b in blind) / (end - start), 4),
                "decoded": len([t for t in slot["decoded"] if t <= end]),
                "frozenShown": round(frozen_fraction(slot["times"], start, end), 4),
                "shown": len([t for t in slot["times"] if t <= end]),
                "sourceFrozen": round(source_frozen[name], 4),
            }
            if slot["stats"] and before.get(name, {}).get("stats"):
                figure.update({key: round(slot["stats"][key] - before[name]["stats"][key], 3) for key in slot["stats"]})
            figures[name] = figure
        dropped = {d: counts_after[d]["dropped"] - counts_before[d]["dropped"] for d in ("up", "down")}
        passed = {d: counts_after[d]["forwarded"] - counts_before[d]["forwarded"] for d in ("up", "down")}
        relay = {d: f"{dropped[d]}/{dropped[d] + passed[d]} dropped" for d in ("up", "down")}
        return figures, relay

    async def blackout(self):
        """Blacks out for BLACKOUT_SECONDS; per publisher, ms from its end to the first newly
        decoded frame (None: none in RECOVERY_WATCH_SECONDS) and to the first shown, and the
        frozen fraction of the 2 s after the first decoded."""
        start = await self.page("window.caucus.now()")
        self.relay.blackout(BLACKOUT_SECONDS)
        end_of_blackout = start + BLACKOUT_SECONDS * 1000
        await asyncio.sleep(BLACKOUT_SECONDS + RECOVERY_WATCH_SECONDS)
        slots = await self.frames(start)
        back = {}
        for name in PUBLISHERS:
            slot = slots.get(name, {"times": [], "decoded": [], "sampled": []})
            decoded = sorted(t for t in slot["decoded"] if t > end_of_blackout)
            shown = sorted(t for t in slot["times"] if t > end_of_blackout)
            back[name] = {
                "backAfterMs": round(decoded[0] - end_of_blackout) if decoded else None,
                "shownAfterMs": round(shown[0] - end_of_blackout) if shown else None,
                "frozenAfter": round(frozen_fraction(decoded, decoded[0], decoded[0] + 2000, gaps(slot["sampled"], decoded[0], decoded[0] + 2000)), 3) if decoded else None,
            }
        return back

    def pair(self, name):
        return f"{PUBLISHERS[name]['stack']} {name} → Chromium {SUBSCRIBER}"

    async def test_video_survives_loss_and_comes_back_after_a_blackout(self):
        baseline, _ = await self.measure(0, BASELINE_SECONDS)
        figures, relay = await self.measure(LOSS)
        back = await self.blackout()
        summary = [f"without loss over {BASELINE_SECONDS} s (not asserted):"]
        summary += [f"  {self.pair(name)}: frozen {baseline[name]['frozen']:.1%} ({baseline[name]['decoded']} frames decoded; "
                    f"from frames shown {baseline[name].get('frozenShown', 1):.1%}; the source's own gaps {baseline[name].get('sourceFrozen', 0):.1%}; "
                    f"unobserved {baseline[name].get('unobserved', 0):.1%}), "
                    f"Chromium's freezes {baseline[name].get('freezeCount')} ({baseline[name].get('totalFreezesDuration')} s)" for name in PUBLISHERS]
        summary.append(f"at {LOSS:.0%} loss each way over {MEASURE_SECONDS} s (relay: {relay}):")
        summary += [f"  {self.pair(name)}: decoding before the loss: {self.decoding_before_loss[name]}; {figures[name]}" for name in PUBLISHERS]
        summary.append(f"after a {BLACKOUT_SECONDS:g} s blackout:")
        summary += [f"  {self.pair(name)}: {back[name]}" for name in PUBLISHERS]
        print("\n" + "\n".join(summary), file=sys.stderr)

        failures = []
        for name in PUBLISHERS:
            if not self.decoding_before_loss[name]:
                failures.append(f"{self.pair(name)}: not decoded even without loss")
            # The spec leaves the counter out unless RTX was negotiated: repairs came as RTX.
            if not figures[name].get("retransmittedPacketsReceived"):
                failures.append(f"{self.pair(name)}: no repair arrived on the slot's RTX stream at {LOSS:.0%} loss")
            if figures[name]["frozen"] > FROZEN_AT_MOST:
                failures.append(f"{self.pair(name)}: frozen {figures[name]['frozen']:.1%} of the time at {LOSS:.0%} loss (at most {FROZEN_AT_MOST:.0%})")
            if back[name]["backAfterMs"] is None or back[name]["backAfterMs"] > BACK_WITHIN_MS:
                failures.append(f"{self.pair(name)}: first frame decoded {back[name]['backAfterMs']} ms after a {BLACKOUT_SECONDS:g} s blackout (within {BACK_WITHIN_MS} ms)")
        if failures:
            self.fail("\n".join(failures + summary) + "\n" + browser_log(self.driver)[-3000:])

    @unittest.skipUnless(os.environ.get("CAUCUS_LOSS_FIGURES"), "set CAUCUS_LOSS_FIGURES=0,5,10,20 (percent) to measure")
    async def test_figures(self):
        losses = [float(value) / 100 for value in os.environ["CAUCUS_LOSS_FIGURES"].split(",")]
        seconds = float(os.environ.get("CAUCUS_LOSS_SECONDS", MEASURE_SECONDS))
        lines = [f"| loss each way | pair | frozen (no frame decoded for > {FREEZE_MS} ms) | frames decoded | frozen, from frames shown | "
                 "the source's own gaps | unobserved | Chromium: freezes, freeze s, NACKs, PLIs, packets lost | relay drops |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for loss in losses:
            figures, relay = await self.measure(loss, seconds)
            for name in PUBLISHERS:
                f = figures[name]
                chromium_counters = f"{f.get('freezeCount')}, {f.get('totalFreezesDuration')}, {f.get('nackCount')}, {f.get('pliCount')}, {f.get('packetsLost')}"
                lines.append(f"| {loss:.0%} | {self.pair(name)} | {f['frozen']:.1%} | {f['decoded']} | {f.get('frozenShown', 1):.1%} | {f.get('sourceFrozen', 0):.1%} | {f.get('unobserved', 0):.1%} | {chromium_counters} | "
                             f"up {relay['up']}, down {relay['down']} |")
        back = await self.blackout()
        lines.append("")
        lines += [f"after a {BLACKOUT_SECONDS:g} s blackout, {self.pair(name)}: first frame decoded {back[name]['backAfterMs']} ms after it, "
                  f"shown {back[name]['shownAfterMs']} ms after it; frozen {back[name]['frozenAfter']} of the 2 s after" for name in PUBLISHERS]
        print("\n" + "\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
