"""Users of every stack in one session behind the lossy relay (lossy_relay.py), for the loss tests
by subscriber stack (test_media_loss_stacks.py): publishers and subscribers on Chromium (users of
one headless page, chromium_peer.js), aiortc (media_peers.Peer) and the SDK (`caucus client`,
README "Media from the terminal"), and, for each publisher × subscriber pair, when the
subscriber decoded a new frame of that publisher, on one clock (milliseconds since 1970):

- Chromium: the moments the slot's framesDecoded (getStats, read every 25 ms) grew, on the
  page's clock (performance.timeOrigin + performance.now()), and when the page did not read
  them for longer than a freeze (nobody looked: left out of the measure);
- aiortc: each frame its receiver's track gave (decoded to pixels), on the slot the server's
  slot map gives the publisher;
- the SDK: the decode times its JSON report lists under each user (`decodedAt`).

A frozen fraction is media_measures': no new decoded frame for more than 200 ms."""

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import CAUCUS  # noqa: E402  (the path is set just above)
from chromium_page import PAGE, call  # noqa: E402
from media_measures import frozen_fraction, gaps  # noqa: E402
from media_peers import Peer  # noqa: E402

CHROMIUM, AIORTC, SDK = "Chromium", "aiortc", "SDK"
VIDEO_RATE = 15


def wall_ms():
    return time.time() * 1000


class AiortcUser:
    stack = AIORTC

    def __init__(self, server, session, name, look):
        self.name = name
        self.peer = Peer(server, session, name, "participant", look["tone"], tuple(look["colour"]), {}, size=tuple(look["size"]), rate=VIDEO_RATE)

    async def join(self):
        await self.peer.join()
        self.user = self.peer.user

    async def publish(self):
        await self.peer.start_media(0, 0)

    async def subscribe(self, video_slots):
        await self.peer.start_media(0, video_slots, send=False)

    def video_receivers(self):
        return sum(1 for t in self.peer.pc.getTransceivers() if t.kind == "video" and t.direction == "recvonly")

    async def decoded(self, publisher, since):
        """(epoch ms of each frame of `publisher` decoded since `since`, intervals nobody looked)."""
        offset = wall_ms() - time.monotonic() * 1000
        mids = {slot["mid"] for slot in self.peer.slot_map if slot.get("user") == publisher.user and slot["kind"] == "video"}
        times = [at * 1000 + offset for mid in mids if mid in self.peer.receptions for at, _, _ in list(self.peer.receptions[mid].seen)]
        return sorted(t for t in times if t >= since), []

    async def sent(self, since):
        offset = wall_ms() - time.monotonic() * 1000
        return [at * 1000 + offset for at in list(self.peer.video_track.sent_at) if at * 1000 + offset >= since]

    async def close(self):
        await self.peer.close()


class SDKUser:
    """`caucus client`: a publisher sends the moving test pattern (`--publish-pattern`), a
    subscriber only receives (`--receive-media`); both decode and report in JSON each second."""

    stack = SDK

    def __init__(self, server, session, name, look):
        self.server, self.session, self.name, self.look = server, session, name, look
        self.process = None
        self.frames = {}  # publisher name -> decode times (epoch ms)
        self.last_report = 0.0  # when the latest report was read (epoch ms)
        self.output = []
        self.lock = threading.Lock()

    async def join(self):
        pass  # it joins when it starts, with its media

    def start(self, arguments):
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        command = [str(CAUCUS), "client", "--session", self.session, "--name", self.name, "--url", ws_url, "--data", self.server.data,
                   *arguments, "--media-report", "json"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            if not line.startswith('{"media"'):
                self.output.append(line)
                continue
            with self.lock:
                for row in json.loads(line)["media"]:
                    self.frames.setdefault(row["name"], []).extend((row.get("video") or {}).get("decodedAt", []))
                self.last_report = wall_ms()

    async def publish(self):
        size = "x".join(map(str, self.look["size"]))
        self.start(["--publish-pattern", "--pattern-size", size, "--pattern-rate", str(VIDEO_RATE)])

    async def subscribe(self, video_slots):
        self.start(["--receive-media"])  # the SDK negotiates its own slots (4 video)

    async def reported_after(self, moment, timeout=5):
        """Waits until a report read after `moment` (its decode times cover up to it)."""
        deadline = time.monotonic() + timeout
        while self.last_report <= moment and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    async def decoded(self, publisher, since):
        with self.lock:
            return sorted(t for t in self.frames.get(publisher.name, []) if t >= since), []

    async def sent(self, since):
        return None  # the client does not say when it encoded each frame

    async def close(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.stdin.close()  # the end of its input makes it leave and exit
        try:
            await asyncio.to_thread(self.process.wait, 20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


class ChromiumUser:
    """A user of the one headless page: a publisher sends a canvas, a subscriber (which sends a
    canvas too, unpublished) samples its slots' decoding."""

    stack = CHROMIUM

    def __init__(self, page, server, session, name, look):
        self.page, self.server, self.session, self.name, self.look = page, server, session, name, look

    async def join(self):
        options = {"name": self.name, "wsURL": self.server.base.replace("http", "ws") + "/ws", "session": self.session,
                   "token": self.server.token(self.session, "participant", self.name), "role": "participant", "palette": {}}
        self.user = await self.page.call("window.caucus.join(args[0])", options)

    async def start(self, video_slots, publish):
        options = {"audioSlots": 0, "videoSlots": video_slots, "source": "synthetic", "tone": self.look["tone"], "colour": self.look["colour"],
                   "size": self.look["size"], "sampleDecoding": video_slots > 0, "sampleSending": publish, "publish": publish}
        await self.page.call("window.caucus.startMedia(args[0], args[1])", self.name, options)

    async def publish(self):
        await self.start(0, True)

    async def subscribe(self, video_slots):
        await self.start(video_slots, False)

    async def decoded(self, publisher, since):
        slots = await self.page.call("window.caucus.frames(args[0], args[1])", self.name, since - self.page.origin)
        times, blind = [], []
        for slot in slots:
            if slot["user"] == publisher.user:
                times += [t + self.page.origin for t in slot["decoded"]]
                blind += [(a + self.page.origin, b + self.page.origin) for a, b in gaps(slot["sampled"], since - self.page.origin, wall_ms() - self.page.origin)]
        return sorted(times), blind

    async def sent(self, since):
        sent = await self.page.call("window.caucus.sent(args[0], args[1])", self.name, since - self.page.origin)
        return [t + self.page.origin for t in sent]

    async def close(self):
        pass  # the page closes its users together (Page.close)


class Page:
    """The headless page's calls, off the event loop; `origin`: its clock's zero in epoch ms."""

    def __init__(self, driver):
        self.driver = driver

    async def open(self):
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        self.origin = await self.call("performance.timeOrigin")

    async def call(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def close(self):
        await self.call("window.caucus.close()")


class StackSession:
    """One session behind `relay`: `publishers` and `subscribers` (name -> (stack, look)), each
    subscriber with `video_slots` video receive slots (the SDK negotiates its own four)."""

    def __init__(self, server, relay, session, publishers, subscribers, page=None, video_slots=3):
        self.server, self.relay, self.session, self.page, self.video_slots = server, relay, session, page, video_slots
        self.publishers = {name: self.user(name, stack, look) for name, (stack, look) in publishers.items()}
        self.subscribers = {name: self.user(name, stack, look) for name, (stack, look) in subscribers.items()}

    def user(self, name, stack, look):
        if stack == CHROMIUM:
            return ChromiumUser(self.page, self.server, self.session, name, look)
        if stack == AIORTC:
            return AiortcUser(self.server, self.session, name, look)
        return SDKUser(self.server, self.session, name, look)

    @property
    def everyone(self):
        return [*self.publishers.values(), *self.subscribers.values()]

    def pairs(self):
        return [(p, s) for p in self.publishers.values() for s in self.subscribers.values()]

    @staticmethod
    def label(publisher, subscriber):
        return f"{publisher.stack} {publisher.name} → {subscriber.stack} {subscriber.name}"

    async def start(self, converge_seconds):
        """Everyone joins and starts; returns the pairs not decoding within `converge_seconds`."""
        if self.page is not None:
            await self.page.open()
        for user in self.everyone:
            await user.join()
        for user in self.publishers.values():
            await user.publish()
        for user in self.subscribers.values():
            await user.subscribe(self.video_slots)
        # SDK users join as they start: their IDs from the session's snapshot.
        asker = next(user for user in self.everyone if user.stack == AIORTC)
        ids = {}
        deadline = time.monotonic() + converge_seconds
        while len(ids) < len(self.everyone) and time.monotonic() < deadline:
            snapshot = await asker.peer.request("getSnapshot")
            ids = {user["name"]: user["id"] for user in snapshot["snapshot"]["users"]}
            await asyncio.sleep(0.3)
        for user in self.everyone:
            user.user = ids.get(user.name, getattr(user, "user", None))
        return await self.start_decoding(max(0, deadline - time.monotonic()))

    async def start_decoding(self, seconds):
        """Waits up to `seconds` for every pair to decode frames (3 in the last 2 s: the SDK's
        come in its reports, once a second); returns the pairs that do not."""
        deadline = time.monotonic() + seconds
        while True:
            since = wall_ms() - 2000
            waiting = [self.label(p, s) for p, s in self.pairs() if len((await s.decoded(p, since))[0]) < 3]
            if not waiting or time.monotonic() > deadline:
                return waiting
            await asyncio.sleep(0.3)

    async def decoded(self, since, until):
        """(publisher, subscriber) -> (decode times, blind intervals) since `since`, once every
        SDK subscriber reported past `until`."""
        for subscriber in self.subscribers.values():
            if subscriber.stack == SDK:
                await subscriber.reported_after(until)
        return {(p.name, s.name): await s.decoded(p, since) for p, s in self.pairs()}

    async def measure(self, loss, seconds, settle=1, then=0):
        """At `loss` each way for `seconds`, after `settle` seconds at it: per pair its frozen
        fraction, frames decoded, the share nobody looked and the publisher's own gaps; and what
        the relay dropped. The loss is `then` afterwards."""
        self.relay.set_loss(loss, loss)
        await asyncio.sleep(settle)
        before = self.relay.counts()
        start = wall_ms()
        await asyncio.sleep(seconds)
        end = wall_ms()
        after = self.relay.counts()
        self.relay.set_loss(then, then)
        sent = {name: await p.sent(start) for name, p in self.publishers.items()}
        decoded = await self.decoded(start, end)
        figures = {}
        for (publisher, subscriber), (times, blind) in decoded.items():
            own = sent[publisher]
            figures[(publisher, subscriber)] = {
                "frozen": round(frozen_fraction(times, start, end, blind), 4),
                "longestMs": round(max([b - a for a, b in gaps(times, start, end, 0)], default=end - start)),
                "decoded": len([t for t in times if t <= end]),
                "unobserved": round(sum(min(b, end) - max(a, start) for a, b in blind if b > start and a < end) / (end - start), 4),
                "sourceFrozen": None if own is None else round(frozen_fraction(own, start, end), 4),
            }
        dropped = {d: after[d]["dropped"] - before[d]["dropped"] for d in ("up", "down")}
        passed = {d: after[d]["forwarded"] - before[d]["forwarded"] for d in ("up", "down")}
        relay = {d: f"{dropped[d]}/{dropped[d] + passed[d]} dropped" for d in ("up", "down")}
        return figures, relay

    async def blackout(self, seconds, watch_seconds):
        """Blacks out for `seconds`; per pair, ms from its end to the first frame decoded after
        it (None: none within `watch_seconds` of the end)."""
        start = wall_ms()
        self.relay.blackout(seconds)
        end = start + seconds * 1000
        await asyncio.sleep(seconds)
        back = {}
        while True:
            await asyncio.sleep(0.5)
            decoded = await self.decoded(start, min(wall_ms(), end + watch_seconds * 1000))
            back = {pair: next((round(t - end) for t in times if t > end), None) for pair, (times, _) in decoded.items()}
            if all(value is not None for value in back.values()) or wall_ms() > end + watch_seconds * 1000:
                return back

    async def close(self):
        for user in self.everyone:
            await user.close()
        if self.page is not None:
            await self.page.close()
