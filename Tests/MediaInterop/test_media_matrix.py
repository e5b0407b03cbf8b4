"""Every WebRTC stack with every other: two Chromium users (in one headless page,
chromium_peer.html / chromium_peer.js) and two aiortc users (media_peers.py) in one session of
one `caucus serve`, each publishing a tone of its own frequency and video of its own colour and
frame size. For publisher × subscriber over {Chromium, aiortc} × {Chromium, aiortc}, audio and
video, each subscriber must *decode* what each publisher of its location sent:

- video: frames of the publisher's colour, every one of them of the size it sent;
- audio: the FFT peak of what is played within 2 % of the publisher's tone;

in the main session before a breakout (every pair), after the host (a fifth user who publishes
nothing) moves them into two rooms that each mix one Chromium and one aiortc user, and after a
second move that swaps the partners. At each step nobody decodes anyone of another room, and each
subscriber's slot map names exactly the publishers of its location.

Sources: one Chromium user sends the browser's fake devices (getUserMedia;
--use-fake-device-for-media-stream, --use-fake-ui-for-media-stream, pointed at a tone and a
picture this test writes), the other a Web Audio oscillator and a canvas; the aiortc users send a
generated sine and frames of one colour.

Every step is checked in full before the test fails, and the failure lists each pair that did
not decode ("aiortc Abe → Chromium Cora, video: …") under a matrix of publisher kind →
subscriber kind per step."""

import asyncio
import statistics
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from chromium_page import PAGE, ServerAndBrowser, browser_log, call, write_picture, write_tone  # noqa: E402
from media_peers import Peer  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

SESSION = "media-matrix"
AUDIO_SLOTS = 3
VIDEO_SLOTS = 3
# How long each step may take to come right, and the window it is read over.
CONVERGE_SECONDS = 25
RECENT_SECONDS = 2.0
# After coming right, a window in which everything received is checked again.
STABLE_SECONDS = 1.5
POLL_SECONDS = 0.3
TONE_TOLERANCE = 0.02
# Fewer than this in the window is not "decoding" (aiortc sends 10 frames a second, Chromium
# 15; tones are read 10 times a second): a bar low enough for a starved machine.
MIN_FRAMES = 4
MIN_TONE_READINGS = 4

CHROMIUM = "Chromium"
AIORTC = "aiortc"
# Each publisher: its stack, and the tone (Hz), colour (RGB) and frame size it sends.
USERS = {
    "Cora": {"stack": CHROMIUM, "source": "fake-device", "tone": 520, "colour": [220, 40, 40], "size": [160, 120]},
    "Cleo": {"stack": CHROMIUM, "source": "synthetic", "tone": 760, "colour": [40, 200, 40], "size": [128, 96]},
    "Abe": {"stack": AIORTC, "tone": 1040, "colour": [40, 40, 220], "size": [96, 64]},
    "Ada": {"stack": AIORTC, "tone": 1380, "colour": [230, 220, 40], "size": [112, 80]},
}
HOST = "Hugo"
FAKE_DEVICE_USER = "Cora"
STACKS = (CHROMIUM, AIORTC)
KINDS = ("audio", "video")


class Cell:
    """One publisher → subscriber pair and kind that failed at one step, and why."""

    def __init__(self, publisher, subscriber, kind, problem):
        self.publisher, self.subscriber, self.kind, self.problem = publisher, subscriber, kind, problem

    @property
    def stacks(self):
        return USERS[self.publisher]["stack"], USERS[self.subscriber]["stack"]

    def __str__(self):
        return f"{USERS[self.publisher]['stack']} {self.publisher} → {USERS[self.subscriber]['stack']} {self.subscriber}, {self.kind}: {self.problem}"


class MediaInteropMatrixTests(ServerAndBrowser, AsyncioTestCase):
    fixtures_prefix = "caucus-matrix-"

    @classmethod
    def write_fixtures(cls, folder):
        fake = USERS[FAKE_DEVICE_USER]
        write_tone(folder / "tone.wav", fake["tone"])
        write_picture(folder / "picture.y4m", fake["colour"], size=fake["size"])

    async def asyncSetUp(self):
        self.aiortc = {}

    async def asyncTearDown(self):
        for peer in self.aiortc.values():
            await peer.close()

    # The page runs in the browser; its calls block, so they run off the event loop that carries
    # the aiortc peers' media.
    async def page(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def request(self, name, op, **arguments):
        if name in self.aiortc:
            return await self.aiortc[name].request(op, **arguments)
        return await self.page("window.caucus.request(args[0], args[1], args[2])", name, op, arguments)

    # What each subscriber decoded ----------------------------------------------------------

    async def received(self):
        """subscriber -> kind -> publisher (or an unrecognised label) -> what was measured of it
        over the last RECENT_SECONDS, and subscriber -> kind -> the users its slot map names.
        Also kept: subscriber -> (kind, user) -> RTP packets the slot that user fills received
        so far, to tell "nothing arrived" from "arrived but not decoded" in a failure."""
        page_now = await self.page("window.caucus.now()")
        report = await self.page("window.caucus.report(args[0])", page_now - RECENT_SECONDS * 1000)
        since = time.monotonic() - RECENT_SECONDS
        decoded, mapped, self.packets = {}, {}, {}
        for name, user in USERS.items():
            decoded[name] = {kind: {} for kind in KINDS}
            mapped[name] = {kind: set() for kind in KINDS}
            if user["stack"] == CHROMIUM:
                self.packets[name] = {}
                for slot in report["peers"][name]["slots"]:
                    for label, measures in slot["measures"].items():
                        decoded[name][slot["kind"]].setdefault(label, []).extend(measures)
                    if slot["user"] is not None:
                        mapped[name][slot["kind"]].add(slot["user"])
                        self.packets[name][(slot["kind"], slot["user"])] = slot["packetsReceived"]
            else:
                peer = self.aiortc[name]
                for kind in KINDS:
                    decoded[name][kind] = {label: [list(m) if isinstance(m, tuple) else m for m in measures]
                                           for label, measures in peer.measures(kind, since).items()}
                mapped[name] = peer.slot_users()
                by_mid = await peer.packets_received()
                self.packets[name] = {(slot["kind"], slot["user"]): by_mid.get(slot["mid"], 0)
                                      for slot in peer.slot_map if slot.get("user") is not None}
        return decoded, mapped

    def problems(self, decoded, mapped, groups):
        """The cells that fail, and anything else wrong (slot maps), for `groups` of users who
        share a location."""
        cells, others = [], []
        location = {name: index for index, group in enumerate(groups) for name in group}
        for subscriber in USERS:
            for kind in KINDS:
                got = decoded[subscriber][kind]
                for publisher in USERS:
                    if publisher == subscriber:
                        continue
                    measures = [m for m in got.get(publisher, []) if m is not None]
                    if location[publisher] == location[subscriber]:
                        problem = self.judge(publisher, kind, measures)
                        if problem:
                            packets = self.packets[subscriber].get((kind, self.users[publisher]))
                            where = "in no slot" if packets is None else f"the slot's receiver has counted {packets} RTP packets (inbound-rtp)"
                            cells.append(Cell(publisher, subscriber, kind, f"{problem}; {where}"))
                    elif measures:
                        cells.append(Cell(publisher, subscriber, kind, f"decoded from another room ({len(measures)} readings)"))
                for label in got:
                    if label not in USERS:
                        others.append(f"{subscriber} ({USERS[subscriber]['stack']}) {kind}: {label} ({len(got[label])} readings)")
                wanted = {self.users[other] for other in USERS if other != subscriber and location[other] == location[subscriber]}
                if mapped[subscriber][kind] != wanted:
                    names = {user: name for name, user in self.users.items()}
                    others.append(f"{subscriber}'s {kind} slot map names {sorted(names.get(u, u) for u in mapped[subscriber][kind])}, "
                                  f"not {sorted(names[u] for u in wanted)}")
        return cells, others

    @staticmethod
    def judge(publisher, kind, measures):
        """Why `measures` (what a subscriber measured of `publisher`) is not decoding what it
        sent, or None."""
        sent = USERS[publisher]
        if kind == "video":
            if len(measures) < MIN_FRAMES:
                return f"{len(measures)} frames of its colour {sent['colour']} decoded in {RECENT_SECONDS} s"
            sizes = {tuple(m) for m in measures}
            if sizes != {tuple(sent["size"])}:
                return f"frames of size {sorted(sizes)}, sent {tuple(sent['size'])}"
            return None
        if len(measures) < MIN_TONE_READINGS:
            return f"{len(measures)} readings of its tone {sent['tone']} Hz in {RECENT_SECONDS} s"
        peak = statistics.median(measures)
        if abs(peak - sent["tone"]) > TONE_TOLERANCE * sent["tone"]:
            return f"FFT peak at {peak:.1f} Hz, sent {sent['tone']} Hz (more than {TONE_TOLERANCE:.0%} off)"
        return None

    async def expect(self, where, groups):
        """Waits for every cell of `where` to come right, then checks a further window; returns
        what still failed (cells, other problems) without failing the test."""
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            cells, others = self.problems(*(await self.received()), groups)
            if not cells and not others:
                break
            if time.monotonic() > deadline:
                return cells, others
            await asyncio.sleep(POLL_SECONDS)
        # A window to watch, not a wait for something: whatever arrives in it is checked.
        await asyncio.sleep(STABLE_SECONDS)
        return self.problems(*(await self.received()), groups)

    @staticmethod
    def matrix(where, groups, cells):
        """Publisher stack → subscriber stack, audio and video: pass, FAIL, or absent when no
        such pair shares a location at this step."""
        location = {name: index for index, group in enumerate(groups) for name in group}
        lines = [f"{where}:"]
        for publisher_stack in STACKS:
            for subscriber_stack in STACKS:
                pairs = [(p, s) for p in USERS for s in USERS if p != s and location[p] == location[s]
                         and USERS[p]["stack"] == publisher_stack and USERS[s]["stack"] == subscriber_stack]
                if not pairs:
                    continue
                verdicts = []
                for kind in KINDS:
                    failed = sum(1 for c in cells if c.stacks == (publisher_stack, subscriber_stack) and c.kind == kind)
                    verdicts.append(f"{kind} {'FAIL' if failed else 'pass'} ({len(pairs) - failed}/{len(pairs)} pairs)")
                lines.append(f"  {publisher_stack} → {subscriber_stack}: " + ", ".join(verdicts))
        across = [cell for cell in cells if location[cell.publisher] != location[cell.subscriber]]
        lines.append(f"  across locations: {'FAIL' if across else 'pass'} ({len(across)} pairs decoded what they should not)")
        return "\n".join(lines)

    # The scenario --------------------------------------------------------------------------

    async def test_every_stack_decodes_every_other_before_and_after_moves(self):
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        palette = {name: {"tone": user["tone"], "colour": user["colour"]} for name, user in USERS.items()}
        aiortc_palette = {name: (user["tone"], tuple(user["colour"])) for name, user in USERS.items()}
        self.users = {}

        host = Peer(self.server, SESSION, HOST, "host", None, None, aiortc_palette)
        self.aiortc[HOST] = host
        await host.join()
        for name, user in USERS.items():
            if user["stack"] == CHROMIUM:
                options = {"name": name, "wsURL": ws_url, "session": SESSION, "token": self.server.token(SESSION, "participant", name),
                           "role": "participant", "palette": palette}
                self.users[name] = await self.page("window.caucus.join(args[0])", options)
            else:
                peer = Peer(self.server, SESSION, name, "participant", user["tone"], user["colour"], aiortc_palette, size=tuple(user["size"]))
                self.aiortc[name] = peer
                await peer.join()
                self.users[name] = peer.user
        for name, user in USERS.items():
            if user["stack"] == CHROMIUM:
                options = {"audioSlots": AUDIO_SLOTS, "videoSlots": VIDEO_SLOTS, "source": user["source"],
                           "tone": user["tone"], "colour": user["colour"], "size": user["size"]}
                await self.page("window.caucus.startMedia(args[0], args[1])", name, options)
            else:
                await self.aiortc[name].start_media(AUDIO_SLOTS, VIDEO_SLOTS)

        steps = []
        everyone = [list(USERS)]
        steps.append(("before the breakout (all in the main session)", everyone, await self.expect("before the breakout", everyone)))

        await host.request("addToPreList", names=["Red", "Blue"])
        await host.request("preAssign", users=[self.users["Cora"], self.users["Abe"]], name="Red")
        await host.request("preAssign", users=[self.users["Cleo"], self.users["Ada"]], name="Blue")
        await host.request("commit")
        await host.request("start", autoMove=True)
        rooms = [["Cora", "Abe"], ["Cleo", "Ada"]]
        steps.append(("in rooms Red (Cora, Abe) and Blue (Cleo, Ada)", rooms, await self.expect("in rooms", rooms)))

        snapshot = (await host.request("getSnapshot"))["snapshot"]
        room_ids = {room["name"]: room["id"] for room in snapshot["breakout"]["rooms"]}
        await host.request("assign", users=[self.users["Abe"]], room=room_ids["Blue"])
        await host.request("assign", users=[self.users["Ada"]], room=room_ids["Red"])
        swapped = [["Cora", "Ada"], ["Cleo", "Abe"]]
        steps.append(("after swapping partners: Red (Cora, Ada), Blue (Cleo, Abe)", swapped, await self.expect("after the swap", swapped)))

        failures = [(where, groups, cells, others) for where, groups, (cells, others) in steps if cells or others]
        if failures:
            text = ["publisher → subscriber decoding:"]
            text += [self.matrix(where, groups, cells) for where, groups, (cells, _) in steps]
            for where, _, cells, others in failures:
                text.append(f"{where}:")
                text += [f"  {cell}" for cell in cells]
                text += [f"  {other}" for other in others]
            self.fail("\n".join(text) + "\n" + browser_log(self.driver)[-4000:])


if __name__ == "__main__":
    unittest.main()
