"""One aiortc peer (media_peers.Peer) and one headless Chromium page (chromium_peer.js) as users
of a session that a Swift test runs: CaucusTests' CrossStackMediaTests starts this script, gives
it the session's WebSocket URL and two tokens, and asks it, line by line, what its two users
decoded of everyone else. The Swift test's own users are two SDK clients; together they are the
four stacks of the cross-stack test.

Commands, one JSON object a line on stdin; one JSON object a line on stdout for each:

- {"op": "start", "ws": url, "session": s, "palette": {name: {"tone": Hz, "colour": [r, g, b]}},
   "users": {name: {"stack": "aiortc" | "chromium", "token": jwt, "size": [w, h]}}}
  joins each user (its tone and colour are its palette entry's), starts its media (one offer,
  3 audio and 3 video receive slots) and publishes audio and video.
  → {"users": {name: user ID}}
- {"op": "mark"}: a moment to measure from. → {"marked": true}
- {"op": "report"}
  → {"report": {receiver: {"audio": {publisher: [Hz, …]}, "video": {publisher: [[w, h], …]},
     "times": {publisher: {"audio": [s, …], "video": [s, …]}}}}}
  `audio` and `video`: what each receiver recognised since the last mark (a tone's frequency
  per reading: aiortc's per 20 ms frame, the page's 10 a second; a frame's size per frame
  shown), by publisher (or an unrecognised label); `times`: when each of those recognitions
  was, in seconds from the mark.
- {"op": "slots"}: for a failure's message, each user's receive slots: who the slot map says
  fills each, the RTP packets its receiver counted, and what it recognised in the last 2 s.
  → {"slots": {receiver: [{"mid", "kind", "user", "packets", "recent"}]}}
- {"op": "resume", "ws": url}: every user takes its seat back on a new WebSocket (`resume` with
  its secret) and makes a new peer (a new offer), as after a server restart; once every new
  peer is connected, marks. → {"resumed": true}
- {"op": "close"} (or stdin closing): leaves, quits the browser, exits. → {"closed": true}

A failure prints {"error": text} and exits."""

import asyncio
import json
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from caucus_server import WAIT_SECONDS  # noqa: E402  (the paths are set just above)
from chromium_page import PAGE, call, chromium, write_picture, write_tone  # noqa: E402
from media_peers import Peer  # noqa: E402

AUDIO_SLOTS = 3
VIDEO_SLOTS = 3


def say(value):
    print(json.dumps(value), flush=True)


class GivenTokens:
    """What media_peers.Peer asks of a server: its address and a token for a user (here the
    Swift test's, minted for this user)."""

    def __init__(self, ws_url, tokens):
        self.base = ws_url.replace("ws", "http", 1).removesuffix("/ws")
        self.tokens = tokens

    def token(self, session, role, name):
        return self.tokens[name]


class ResumingPeer(Peer):
    """An aiortc user that keeps its join secret, so it can take its seat back after a restart."""

    async def join(self):
        reply = await super().join()
        self.secret = reply["secret"]
        return reply

    async def resume(self, ws_url):
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        await self.pc.close()
        await self.ws.close()
        self.base = ws_url.replace("ws", "http", 1).removesuffix("/ws")
        import websockets

        self.ws = await websockets.connect(ws_url, max_size=None)
        self.tasks.append(asyncio.create_task(self.read()))
        await self.request("resume", protocol=1, secret=self.secret, lastSeq=0)
        # What it publishes survived with its seat.
        await self.start_media(AUDIO_SLOTS, VIDEO_SLOTS, publish=False)
        deadline = time.monotonic() + WAIT_SECONDS
        while self.pc.connectionState != "connected":
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: the new peer is {self.pc.connectionState}")
            await asyncio.sleep(0.01)


class CrossStackPeers:
    def __init__(self):
        self.aiortc = {}
        self.chromium = {}
        self.driver = None
        self.fixtures = None
        self.mark = (time.monotonic(), 0.0)

    async def page(self, expression, *arguments):
        # The page's calls block: off the event loop that carries the aiortc peers' media.
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def start(self, ws, session, palette, users):
        aiortc_palette = {name: (entry["tone"], tuple(entry["colour"])) for name, entry in palette.items()}
        browser_users = [name for name, user in users.items() if user["stack"] == "chromium"]
        # The browser's fake devices play the (one) Chromium user's tone and colour.
        self.fixtures = Path(tempfile.mkdtemp(prefix="caucus-crossstack-"))
        fake = palette[browser_users[0]] if browser_users else {"tone": 440, "colour": [128, 128, 128]}
        size = users[browser_users[0]]["size"] if browser_users else [160, 120]
        write_tone(self.fixtures / "tone.wav", fake["tone"])
        write_picture(self.fixtures / "picture.y4m", fake["colour"], size=tuple(size))
        self.driver = await asyncio.to_thread(chromium, self.fixtures)
        self.driver.set_script_timeout(WAIT_SECONDS * 2)
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        ids = {}
        for name, user in users.items():
            if user["stack"] == "aiortc":
                entry = palette[name]
                peer = ResumingPeer(GivenTokens(ws, {name: user["token"]}), session, name, "participant", entry["tone"],
                                    tuple(entry["colour"]), aiortc_palette, size=tuple(user["size"]))
                await peer.join()
                self.aiortc[name] = peer
                ids[name] = peer.user
            else:
                options = {"name": name, "wsURL": ws, "session": session, "token": user["token"], "role": "participant",
                           "palette": palette}
                ids[name] = await self.page("window.caucus.join(args[0])", options)
                self.chromium[name] = {"audioSlots": AUDIO_SLOTS, "videoSlots": VIDEO_SLOTS, "source": "fake-device",
                                       "tone": palette[name]["tone"], "colour": palette[name]["colour"], "size": user["size"]}
        for peer in self.aiortc.values():
            await peer.start_media(AUDIO_SLOTS, VIDEO_SLOTS)
        for name, options in self.chromium.items():
            await self.page("window.caucus.startMedia(args[0], args[1])", name, options)
        return {"users": ids}

    async def set_mark(self):
        marked = time.monotonic()
        page_now = await self.page("window.caucus.now()")
        # The page's clock at the mark: its reading, less the time the call took.
        self.mark = (marked, page_now - (time.monotonic() - marked) * 1000)
        return {"marked": True}

    async def report(self):
        marked, page_marked = self.mark
        report = {}
        for name, peer in self.aiortc.items():
            entry = {"audio": {}, "video": {}, "times": {}}
            for kind in ("audio", "video"):
                for label, measures in peer.measures(kind, marked).items():
                    entry[kind][label] = [list(m) if isinstance(m, tuple) else round(m, 2) for m in measures if m is not None]
                for reception in peer.receptions.values():
                    if reception.kind != kind:
                        continue
                    for at, label, _ in reception.seen:
                        if at >= marked and label is not None:
                            times = entry["times"].setdefault(label, {"audio": [], "video": []})
                            times[kind].append(round(at - marked, 3))
            for times in entry["times"].values():
                times["audio"].sort()
                times["video"].sort()
            report[name] = entry
        if self.chromium:
            page_report = await self.page("window.caucus.report(args[0])", page_marked)
            for name in self.chromium:
                entry = {"audio": {}, "video": {}, "times": {}}
                for slot in page_report["peers"][name]["slots"]:
                    for label, measures in slot["measures"].items():
                        entry[slot["kind"]].setdefault(label, []).extend(
                            m if isinstance(m, list) else round(m, 2) for m in measures if m is not None)
                    for label, moments in slot["labelTimes"].items():
                        times = entry["times"].setdefault(label, {"audio": [], "video": []})
                        times[slot["kind"]].extend(round((at - page_marked) / 1000, 3) for at in moments)
                for times in entry["times"].values():
                    times["audio"].sort()
                    times["video"].sort()
                report[name] = entry
        return {"report": report}

    async def slots(self):
        slots = {}
        for name, peer in self.aiortc.items():
            packets = await peer.packets_received()
            users = {slot["mid"]: slot.get("user") for slot in peer.slot_map}
            recently = time.monotonic() - 2
            slots[name] = [{"mid": mid, "kind": reception.kind, "user": users.get(mid), "packets": packets.get(mid, 0),
                            "recent": sorted({str(label) for at, label, _ in reception.seen if at >= recently})}
                           for mid, reception in sorted(peer.receptions.items())]
        if self.chromium:
            page_report = await self.page("window.caucus.report(window.caucus.now() - 2000)")
            for name in self.chromium:
                slots[name] = [{"mid": slot["mid"], "kind": slot["kind"], "user": slot["user"], "packets": slot["packetsReceived"],
                                "recent": slot["labels"]} for slot in page_report["peers"][name]["slots"]]
        return {"slots": slots}

    async def resume(self, ws):
        for peer in self.aiortc.values():
            await peer.resume(ws)
        for name, options in self.chromium.items():
            await self.page("window.caucus.resume(args[0], args[1], args[2])", name, ws, {**options, "publish": False})
        await self.set_mark()
        return {"resumed": True}

    async def close(self):
        for peer in self.aiortc.values():
            try:
                await peer.close()
            except Exception:  # closing is best effort: the server may be gone
                pass
        if self.driver is not None:
            try:
                await self.page("window.caucus.close()")
            finally:
                await asyncio.to_thread(self.driver.quit)
        if self.fixtures is not None:
            shutil.rmtree(self.fixtures, ignore_errors=True)


async def main():
    # Debug mode's bookkeeping costs the aiortc peers CPU their media needs on a small machine.
    asyncio.get_running_loop().set_debug(False)
    peers = CrossStackPeers()
    try:
        while True:
            line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            command = json.loads(line)
            op = command["op"]
            if op == "start":
                say(await peers.start(command["ws"], command["session"], command["palette"], command["users"]))
            elif op == "mark":
                say(await peers.set_mark())
            elif op == "report":
                say(await peers.report())
            elif op == "slots":
                say(await peers.slots())
            elif op == "resume":
                say(await peers.resume(command["ws"]))
            elif op == "close":
                break
            else:
                say({"error": f"unknown op {op}"})
    except Exception:
        say({"error": traceback.format_exc()})
    finally:
        await peers.close()
        say({"closed": True})


if __name__ == "__main__":
    asyncio.run(main())
