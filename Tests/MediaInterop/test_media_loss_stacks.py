"""Loss repaired for every subscriber stack: aiortc and SDK (`caucus client`) subscribers under
loss and after a blackout, every datagram between the peers and `caucus serve` passing the lossy
relay (lossy_relay.py; the server binds 127.0.0.1 and announces 127.0.0.2, where the relay
listens). test_media_loss.py measures Chromium subscribers; this measures the others, on the
clock and with the measure described in loss_stacks.py (video frozen while no new frame has been
decoded for 200 ms).

Publishers: an aiortc user (Abe, 15 fps) and an SDK user (Sid, `caucus client --publish-pattern`,
15 fps). Subscribers: an aiortc user (Ava) with three video receive slots, and an SDK user (Sue,
`caucus client --receive-media --media-report json`). Three video receivers matter: aiortc then
drops every RTX packet (it routes an unknown SSRC by payload type, shared by all three), so its
repairs must come on the slot's own SSRC (RetransmissionAcceptance) — with RTX only, each loss
freezes its video for seconds. Asserted, for every pair:

- at 5 % random loss each way, video frozen at most 15 % of a 20 s window, which opens after
  8 s at that loss (while the server learns from the aiortc subscriber's reports and NACKs
  that it drops RTX: a cost paid once, printed apart). The target is 5 %, which the medians meet
  (docs/benchmarks.md); a loaded machine alone adds up to 10 points, as test_media_loss.py
  explains, so `CAUCUS_LOSS_FROZEN_AT_MOST=0.05` asserts the target itself. With repairs to
  aiortc on RTX only, its video is frozen all of the window;
- after a 1 s blackout (everything dropped, both ways), the first newly decoded frame within 1 s
  of its end.

Figures for every pair of {Chromium, aiortc, SDK} (docs/benchmarks.md):
`CAUCUS_LOSS_MATRIX=0,5,10 python3 -m unittest test_media_loss_stacks.LossBySubscriberStackTests.test_figures`
(skipped without the variable; `CAUCUS_LOSS_MATRIX_RUNS`, default 3, fresh sessions whose
medians it prints, with 1 s and 3 s blackouts)."""

import asyncio
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import WAIT_SECONDS, CaucusServer  # noqa: E402  (the path is set just above)
from chromium_page import chromium, write_picture, write_tone  # noqa: E402
from loss_stacks import AIORTC, CHROMIUM, SDK, Page, StackSession, wall_ms  # noqa: E402
from lossy_relay import BehindLossyRelay  # noqa: E402
from media_measures import gaps  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

LOSS = 0.05
MEASURE_SECONDS = 20
# The loss's first seconds, before the window: the server learns from an aiortc subscriber's
# reports and NACKs that it drops RTX (RetransmissionAcceptance; a few seconds), and until then
# its repairs are lost on the way. A cost paid once per subscriber, printed apart.
LEARNING_SECONDS = 8
BASELINE_SECONDS = 5
FROZEN_AT_MOST = float(os.environ.get("CAUCUS_LOSS_FROZEN_AT_MOST", "0.15"))
BLACKOUT_SECONDS = 1.0
BACK_WITHIN_MS = 1000
# How long to look for the video coming back after a blackout (a hang guard, not a target).
RECOVERY_WATCH_SECONDS = 6
CONVERGE_SECONDS = 30
# Before a blackout in the figures, how long to wait for every pair to be decoding again.
SETTLE_SECONDS = 15
AIORTC_VIDEO_SLOTS = 3
# After one lost packet: the repair on RTX, two of the subscriber's reports without it (one
# every 0.5 to 1.5 s from aiortc, the first 0.5 s after the repair) and the repair again take
# 1.4 to 2.9 s here (3.5 s at worst); without them, 30 s or more.
LONE_LOSS_WATCH_SECONDS = 10
LONE_LOSS_FROZEN_AT_MOST_MS = 5000
SEED = 37

LOOKS = {
    "Pia": {"tone": 600, "colour": [220, 40, 40], "size": [128, 96]},
    "Abe": {"tone": 900, "colour": [40, 40, 220], "size": [96, 64]},
    "Sid": {"tone": 700, "colour": [0, 0, 0], "size": [96, 64]},
    "Sol": {"tone": 1300, "colour": [40, 200, 40], "size": [64, 48]},
    "Ava": {"tone": 1100, "colour": [200, 200, 40], "size": [64, 48]},
    "Sue": {"tone": 500, "colour": [0, 0, 0], "size": [64, 48]},
}


class LossBySubscriberStackTests(BehindLossyRelay, AsyncioTestCase):
    relay_seed = SEED

    @classmethod
    def setUpClass(cls):
        cls.server = CaucusServer(arguments=list(cls.server_arguments))
        cls.driver = None
        try:
            cls.before_browser()  # the relay
        except Exception:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.driver is not None:
            cls.driver.quit()
            shutil.rmtree(cls.fixtures, ignore_errors=True)
        cls.after_browser()
        cls.server.stop()

    @classmethod
    def browser(cls):
        """Headless Chromium, made on first use (only the figures need it)."""
        if cls.driver is None:
            cls.fixtures = Path(tempfile.mkdtemp(prefix="caucus-loss-stacks-"))
            write_tone(cls.fixtures / "tone.wav", 440)  # a browser wants its fake devices' files
            write_picture(cls.fixtures / "picture.y4m", [128, 128, 128])
            cls.driver = chromium(cls.fixtures)
        return cls.driver

    async def asyncSetUp(self):
        # The loop's debug mode costs the aiortc peers CPU their media needs (test_media_loss.py).
        asyncio.get_running_loop().set_debug(False)
        self.relay.set_loss(0, 0)
        self.sessions = []

    async def asyncTearDown(self):
        self.relay.set_loss(0, 0)
        for session in self.sessions:
            await session.close()

    async def session(self, name, publishers, subscribers, page=None):
        session = StackSession(self.server, self.relay, name, {n: (stack, LOOKS[n]) for n, stack in publishers.items()},
                               {n: (stack, LOOKS[n]) for n, stack in subscribers.items()}, page=page, video_slots=AIORTC_VIDEO_SLOTS)
        self.sessions.append(session)
        return session, await session.start(CONVERGE_SECONDS)

    async def test_aiortc_and_sdk_subscribers_repair_loss_and_come_back_after_a_blackout(self):
        session, waiting = await self.session("loss-stacks", {"Abe": AIORTC, "Sid": SDK}, {"Ava": AIORTC, "Sue": SDK})
        self.assertEqual(waiting, [], "not decoding even without loss")
        self.assertGreaterEqual(session.subscribers["Ava"].video_receivers(), AIORTC_VIDEO_SLOTS)
        baseline, _ = await session.measure(0, BASELINE_SECONDS)
        learning, _ = await session.measure(LOSS, LEARNING_SECONDS, settle=0, then=LOSS)
        figures, relay = await session.measure(LOSS, MEASURE_SECONDS, settle=0)
        back = await session.blackout(BLACKOUT_SECONDS, RECOVERY_WATCH_SECONDS)

        label = {(p.name, s.name): session.label(p, s) for p, s in session.pairs()}
        summary = [f"without loss over {BASELINE_SECONDS} s (not asserted):"]
        summary += [f"  {label[pair]}: {baseline[pair]}" for pair in label]
        summary.append(f"the first {LEARNING_SECONDS} s of {LOSS:.0%} loss, while the server learns who takes RTX (not asserted):")
        summary += [f"  {label[pair]}: {learning[pair]}" for pair in label]
        summary.append(f"at {LOSS:.0%} loss each way over the next {MEASURE_SECONDS} s (relay: {relay}):")
        summary += [f"  {label[pair]}: {figures[pair]}" for pair in label]
        summary.append(f"after a {BLACKOUT_SECONDS:g} s blackout, first frame decoded (ms after its end):")
        summary += [f"  {label[pair]}: {back[pair]}" for pair in label]
        print("\n" + "\n".join(summary), file=sys.stderr)

        failures = []
        for pair in label:
            if figures[pair]["frozen"] > FROZEN_AT_MOST:
                failures.append(f"{label[pair]}: frozen {figures[pair]['frozen']:.1%} of the time at {LOSS:.0%} loss (at most {FROZEN_AT_MOST:.0%})")
            if back[pair] is None or back[pair] > BACK_WITHIN_MS:
                failures.append(f"{label[pair]}: first frame decoded {back[pair]} ms after a {BLACKOUT_SECONDS:g} s blackout (within {BACK_WITHIN_MS} ms)")
        if failures:
            self.fail("\n".join(failures + summary))

    async def test_an_aiortc_subscriber_that_loses_one_video_packet_sees_the_video_again_within_seconds(self):
        """A lone loss, with no other loss to teach the server anything: aiortc asks for the
        packet once, drops the repair that comes on RTX, and never asks again, and its jitter
        buffer holds every later frame behind the gap (512 packets, half a minute here). The
        server learns from its reports that it never takes RTX, and sends the repair again on
        the slot's own SSRC."""
        session, waiting = await self.session("lone-loss", {"Abe": AIORTC}, {"Ava": AIORTC})
        self.assertEqual(waiting, [], "not decoding even without loss")
        ava, abe = session.subscribers["Ava"], session.publishers["Abe"]
        self.assertGreaterEqual(ava.video_receivers(), AIORTC_VIDEO_SLOTS)
        ufrag = re.search(r"a=ice-ufrag:(\S+)", ava.peer.pc.localDescription.sdp).group(1)
        vp8 = int(re.search(r"a=rtpmap:(\d+) VP8/90000", ava.peer.pc.remoteDescription.sdp).group(1))
        self.relay.drop_next(ufrag, vp8, 1)
        deadline = time.monotonic() + WAIT_SECONDS
        while self.relay.counts()["down"].get("targeted", 0) < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        self.assertEqual(self.relay.counts()["down"].get("targeted"), 1, "the relay dropped no video packet towards Ava")
        dropped = wall_ms()
        await asyncio.sleep(LONE_LOSS_WATCH_SECONDS)
        end = wall_ms()
        times, _ = await ava.decoded(abe, dropped - 1000)
        longest = max([b - a for a, b in gaps(times, dropped, end, 0)], default=end - dropped)
        print(f"\nafter one video packet lost towards aiortc Ava: longest gap between decoded frames {longest:.0f} ms "
              f"over the next {LONE_LOSS_WATCH_SECONDS} s ({len([t for t in times if t > dropped])} frames)", file=sys.stderr)
        self.assertLessEqual(longest, LONE_LOSS_FROZEN_AT_MOST_MS, "the gap of one lost packet was never mended")

    @unittest.skipUnless(os.environ.get("CAUCUS_LOSS_MATRIX"), "set CAUCUS_LOSS_MATRIX=0,5,10 (percent) to measure")
    async def test_figures(self):
        losses = sorted(float(value) / 100 for value in os.environ["CAUCUS_LOSS_MATRIX"].split(","))
        runs = int(os.environ.get("CAUCUS_LOSS_MATRIX_RUNS", "3"))
        blackouts = (1.0, 3.0)
        page = Page(await asyncio.to_thread(self.browser))
        frozen, back, labels = {}, {}, {}
        for run in range(runs):
            session, waiting = await self.session(f"loss-matrix-{run}", {"Pia": CHROMIUM, "Abe": AIORTC, "Sid": SDK},
                                                  {"Sol": CHROMIUM, "Ava": AIORTC, "Sue": SDK}, page=page)
            if waiting:
                print(f"run {run}: not decoding without loss: {waiting}", file=sys.stderr)
            labels = {(p.name, s.name): (p.stack, s.stack) for p, s in session.pairs()}
            learnt = False
            for loss in losses:
                if loss > 0 and not learnt:
                    learning, _ = await session.measure(LOSS, LEARNING_SECONDS, settle=0, then=loss)
                    print(f"run {run}, the first {LEARNING_SECONDS} s of {LOSS:.0%} loss: {learning}", file=sys.stderr)
                    learnt = True
                figures, relay = await session.measure(loss, MEASURE_SECONDS, settle=0 if loss > 0 else 1)
                print(f"run {run}, {loss:.0%} loss (relay: {relay}): {figures}", file=sys.stderr)
                for pair, figure in figures.items():
                    frozen.setdefault((loss, pair), []).append(figure["frozen"])
            for seconds in blackouts:
                # From a picture that moves on every pair (a freeze left by the loss is not the blackout's).
                still = await session.start_decoding(SETTLE_SECONDS)
                result = await session.blackout(seconds, RECOVERY_WATCH_SECONDS + seconds)
                print(f"run {run}, {seconds:g} s blackout (not decoding before it: {still}): {result}", file=sys.stderr)
                for pair, value in result.items():
                    back.setdefault((seconds, pair), []).append(value)
            await session.close()
            self.sessions.remove(session)

        def median(values):
            known = [v for v in values if v is not None]
            return statistics.median(known) if len(known) == len(values) else None

        head = " | ".join(f"frozen at {loss:.0%}" for loss in losses) + " | " + " | ".join(f"back after {s:g} s blackout" for s in blackouts)
        lines = [f"| publisher → subscriber | {head} |", "|" + " --- |" * (1 + len(losses) + len(blackouts))]
        for pair, (publisher, subscriber) in labels.items():
            cells = [f"{median(frozen[(loss, pair)]):.1%}" for loss in losses]
            cells += [f"{median(back[(s, pair)])} ms" if median(back[(s, pair)]) is not None else f"not back: {back[(s, pair)]}" for s in blackouts]
            lines.append(f"| {publisher} → {subscriber} | " + " | ".join(cells) + " |")
        lines.append(f"\nmedians of {runs} runs; each run's figures: frozen {frozen}; back {back}")
        print("\n" + "\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
