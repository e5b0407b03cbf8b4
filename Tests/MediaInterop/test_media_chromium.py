"""Audio and video follow rooms with Chromium as the WebRTC peer: the same scenario as
test_media_rooms.py (aiortc), with four users in one headless Chromium page
(chromium_peer.html / chromium_peer.js), one RTCPeerConnection and one WebSocket each.

What each user sends, and why:
- Hana (the host) sends the browser's fake capture devices, through getUserMedia, as a real
  client would: Chromium runs with --use-fake-device-for-media-stream and
  --use-fake-ui-for-media-stream, and --use-file-for-fake-audio-capture /
  --use-file-for-fake-video-capture point the fake microphone and camera at a 440 Hz tone and a
  red picture this test writes. Chromium's default fake media (a periodic beep, a
  moving test pattern) cannot tell one publisher from another, and there is one fake device per
  browser, so only one user can send it.
- Ann, Ben and Cy send a Web Audio oscillator (MediaStreamAudioDestinationNode) and a 64x48
  canvas of one colour (canvas.captureStream at 15 fps), a tone and a colour each.
The tracks' sources are checked (the fake-device tracks are the devices enumerateDevices lists
under Chromium's fake names, the others come from the canvas and Web Audio) and getStats shows
each sent (media-source energy or frames, outbound-rtp packets).

Each receive slot is decoded as a browser shows it: video in a <video> element whose every
frame is drawn into a canvas and recognised by its mean colour, audio through an AnalyserNode
whose FFT peak names the tone. At each step every peer must come to hear and see exactly the
publishers of its own location, each slot carrying the user the server's slot map frame gives
its mid, then stay so for a while: filled slots' inbound-rtp counters grow, empty slots'
do not. At the end every peer has made one offer and applied one answer, sent one mediaOffer,
and kept the transceivers (mids) it started with."""

import sys
import time
import unittest
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from chromium_page import PAGE, ServerAndBrowser, browser_log, call, write_picture, write_tone  # noqa: E402

SESSION = "media-chromium"
AUDIO_SLOTS = 3
VIDEO_SLOTS = 3
# How long a condition must be met within, and the window it is read over (milliseconds: the
# page's clock).
CONVERGE_SECONDS = 30
RECENT_MS = 1000
# After converging, how long nothing from elsewhere may arrive.
STABLE_SECONDS = 1.5
POLL_SECONDS = 0.25

# name -> tone (Hz) and colour (RGB); Hana's are what the fake devices are fed.
PALETTE = {
    "Hana": {"tone": 440, "colour": [220, 40, 40]},
    "Ann": {"tone": 620, "colour": [40, 200, 40]},
    "Ben": {"tone": 820, "colour": [40, 40, 220]},
    "Cy": {"tone": 1020, "colour": [230, 220, 40]},
}
FAKE_DEVICE_USER = "Hana"


class MediaFollowsRoomsInChromiumTests(ServerAndBrowser, unittest.TestCase):
    fixtures_prefix = "caucus-chromium-"

    @classmethod
    def write_fixtures(cls, folder):
        write_tone(folder / "tone.wav", PALETTE[FAKE_DEVICE_USER]["tone"])
        write_picture(folder / "picture.y4m", PALETTE[FAKE_DEVICE_USER]["colour"])

    # Driving the page ---------------------------------------------------------------------

    def call(self, expression, *arguments):
        """Awaits `expression` (a promise) in the page with `arguments`; returns its JSON value
        or raises with the page's error and log."""
        return call(self.driver, expression, *arguments)

    def browser_log(self):
        return browser_log(self.driver)

    def token(self, name, role):
        return self.server.token(SESSION, role, name)

    def request(self, who, op, **arguments):
        return self.call("window.caucus.request(args[0], args[1], args[2])", who, op, arguments)

    def report(self, since_ms):
        return self.call("window.caucus.report(args[0])", since_ms)

    def now_ms(self):
        return self.driver.execute_script("return window.caucus.now();")

    # Expectations --------------------------------------------------------------------------

    def problems(self, report, expected, names):
        """What differs from `expected` (name -> the publishers it should get) in `report`:
        what each peer heard and saw, and the users its slot map puts in its slots."""
        problems = []
        for name, wanted in expected.items():
            peer = report["peers"][name]
            wanted_users = {self.users[other] for other in wanted}
            for kind in ("audio", "video"):
                slots = [slot for slot in peer["slots"] if slot["kind"] == kind]
                got = set().union(*(slot["labels"] for slot in slots))
                if got != wanted:
                    problems.append(f"{name} {'heard' if kind == 'audio' else 'saw'} {sorted(got)}, not {sorted(wanted)}")
                mapped = {slot["user"] for slot in slots if slot["user"] is not None}
                if mapped != wanted_users:
                    problems.append(f"{name}'s {kind} slot map: users {sorted(mapped)}, not {sorted(wanted_users)}")
                for slot in slots:
                    if not slot["mapped"]:
                        problems.append(f"{name}'s slot {slot['mid']} ({kind}) is in no slot map frame")
                    filler = names.get(slot["user"])
                    if slot["labels"] and slot["labels"] != [filler]:
                        problems.append(f"{name}'s slot {slot['mid']} ({kind}) carried {slot['labels']}, its map says {filler}")
        return problems

    def expect(self, where, groups):
        """Each peer comes to hear and see exactly the others of its group, each in the slot the
        server's map names, then receives nothing else for a while."""
        expected = {name: set(group) - {name} for group in groups for name in group}
        names = {user: name for name, user in self.users.items()}
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            report = self.report(self.now_ms() - RECENT_MS)
            problems = self.problems(report, expected, names)
            if not problems:
                break
            if time.monotonic() > deadline:
                self.fail(f"{where}: did not converge in {CONVERGE_SECONDS} s: {problems}\n{self.browser_log()}")
            time.sleep(POLL_SECONDS)

        stable_from = report["now"]
        before = {name: {slot["mid"]: slot for slot in peer["slots"]} for name, peer in report["peers"].items()}
        # A window to watch, not a wait for something: whatever arrives in it is checked.
        time.sleep(STABLE_SECONDS)
        report = self.report(stable_from)
        self.assertEqual(self.problems(report, expected, names), [], f"{where}: after {STABLE_SECONDS} s stable")
        for name, peer in report["peers"].items():
            for slot in peer["slots"]:
                grew = slot["packetsReceived"] - before[name][slot["mid"]]["packetsReceived"]
                if slot["user"] is None:
                    self.assertEqual(grew, 0, f"{where}: {name}'s empty slot {slot['mid']} ({slot['kind']}) received {grew} packets")
                    self.assertEqual(slot["labels"], [], f"{where}: {name}'s empty slot {slot['mid']} played {slot['labels']}")
                else:
                    self.assertGreater(grew, 0, f"{where}: {name}'s slot {slot['mid']} ({slot['kind']}, {names[slot['user']]}) received no packet")
                    self.assertGreater(slot["bytesReceived"], before[name][slot["mid"]]["bytesReceived"], f"{where}: {name}'s slot {slot['mid']} bytes")

    def room_ids(self):
        snapshot = self.request("Hana", "getSnapshot")["snapshot"]
        return {room["name"]: room["id"] for room in snapshot["breakout"]["rooms"]}

    def assert_sources(self):
        """Hana sends the fake devices (as enumerateDevices names them); the others a canvas
        and Web Audio; getStats shows each track's source and its packets going out."""
        sources = self.call("window.caucus.sources()")
        for name, sent in sources.items():
            for kind in ("audio", "video"):
                track = sent[kind]
                self.assertEqual(track["readyState"], "live", f"{name}'s {kind} track")
                self.assertTrue(track["sending"], f"{name}'s {kind} track has no sender")
                self.assertIsNotNone(track["mediaSource"], f"{name}'s {kind} track has no media-source stats")
                self.assertGreater(track["packetsSent"], 0, f"{name}'s {kind}: no outbound-rtp packets")
            if name == FAKE_DEVICE_USER:
                self.assertEqual(sent["source"], "fake-device")
                # The tracks are the capture devices enumerateDevices lists: Chromium's fake
                # microphone, and its fake camera, named after the file it plays.
                self.assertEqual(sent["audio"]["device"], sent["audio"]["label"], f"{name}'s audio is not an enumerated microphone")
                self.assertIn("fake", sent["audio"]["device"].lower(), f"{name}'s microphone is not Chromium's fake one")
                self.assertEqual(sent["video"]["device"], str(self.fixtures / "picture.y4m"), f"{name}'s video is not the fake camera")
                self.assertFalse(sent["video"]["fromCanvas"], name)
            else:
                self.assertEqual(sent["source"], "synthetic")
                self.assertTrue(sent["video"]["fromCanvas"], f"{name}'s video is not a canvas capture: {sent['video']}")
                self.assertIsNone(sent["audio"]["device"], f"{name}'s audio is a capture device: {sent['audio']}")
                self.assertEqual(sent["audio"]["label"], "MediaStreamAudioDestinationNode", f"{name}'s audio is not Web Audio's")
            self.assertGreater(sent["audio"]["mediaSource"]["totalAudioEnergy"], 0, f"{name}'s audio source is silent")
            self.assertGreater(sent["video"]["mediaSource"]["frames"], 0, f"{name}'s video source has no frames")

    # The scenario --------------------------------------------------------------------------

    def test_media_follows_rooms_without_renegotiation(self):
        self.driver.get(PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        self.users = {}
        for name in PALETTE:
            role = "host" if name == "Hana" else "participant"
            options = {"name": name, "wsURL": ws_url, "session": SESSION, "token": self.token(name, role), "role": role, "palette": PALETTE}
            self.users[name] = self.call("window.caucus.join(args[0])", options)
        for name, look in PALETTE.items():
            source = "fake-device" if name == FAKE_DEVICE_USER else "synthetic"
            options = {"audioSlots": AUDIO_SLOTS, "videoSlots": VIDEO_SLOTS, "source": source, **look}
            self.call("window.caucus.startMedia(args[0], args[1])", name, options)
        users = self.users

        self.expect("before the breakout", [["Hana", "Ann", "Ben", "Cy"]])
        self.assert_sources()

        self.request("Hana", "addToPreList", names=["Red", "Blue"])
        self.request("Hana", "preAssign", users=[users["Ann"], users["Ben"]], name="Red")
        self.request("Hana", "preAssign", users=[users["Cy"]], name="Blue")
        self.request("Hana", "commit")
        self.request("Hana", "start", autoMove=True)
        self.expect("in rooms", [["Hana"], ["Ann", "Ben"], ["Cy"]])

        rooms = self.room_ids()
        self.request("Hana", "assign", users=[users["Cy"]], room=rooms["Red"])
        self.expect("after a move", [["Hana"], ["Ann", "Ben", "Cy"]])

        self.request("Hana", "returnEveryone")
        self.expect("after everyone returned", [["Hana", "Ann", "Ben", "Cy"]])

        # Publishing nothing stops the forwarding, though the peers' tracks still send.
        for name in PALETTE:
            self.request(name, "publish", media=[])
        self.expect("after everyone stopped publishing", [[name] for name in PALETTE])

        for name, negotiation in self.call("window.caucus.negotiation()").items():
            self.assertEqual(negotiation["descriptions"], {"local": ["offer"], "remote": ["answer"]}, f"{name} negotiated again")
            self.assertEqual(negotiation["mediaOffersSent"], 1, f"{name} sent another mediaOffer")
            self.assertEqual(negotiation["signalingState"], "stable", name)
            self.assertEqual(negotiation["midsNow"], negotiation["midsAtStart"], f"{name}'s transceivers changed")
            self.assertEqual(len(negotiation["midsNow"]), 2 + AUDIO_SLOTS + VIDEO_SLOTS, name)
            self.assertEqual(negotiation["directions"], ["sendonly", "sendonly"] + ["recvonly"] * (AUDIO_SLOTS + VIDEO_SLOTS), name)

        # Where the server sends runs the kernel cuts up (--media-gso: by default on Linux 6.11
        # and later), Chromium got some of the above in them, and decoded it.
        metrics = dict(
            line.split(" ", 1) for line in urllib.request.urlopen(self.server.base + "/metrics").read().decode().splitlines()
            if line.startswith("caucus_media_segment"))
        if float(metrics.get("caucus_media_segmentation_offload", "0")) == 1:
            self.assertGreater(float(metrics.get("caucus_media_segmented_datagrams_total", "0")), 0, "no datagram left in a run")


if __name__ == "__main__":
    unittest.main()
