"""`caucus client` as a media user beside a headless Chromium one (chromium_page.py).

Hana, in Chromium, sends the browser's fake capture devices (a 440 Hz tone and a red 160x120
picture this test writes); Cli is `caucus client --publish-tone --tone-hertz 660
--publish-pattern --pattern-size 320x240 --media-report json`, which encodes its tone with
libopus and its moving test pattern (a bar crossing a blue background) with libvpx.

- Cli decodes Hana's media: its JSON report (a line a second) names her, by user ID and name,
  with a plausible frame rate (> 5 fps), the page's resolution (160x120, decoded with libvpx)
  and her tone's level (decoded with libopus; the tone is -11.7 dBFS).
- Chromium decodes Cli's: a <video> element shows frames of 320x240 whose mean colour is the
  pattern's, and an analyser hears 660 Hz.
- Media follows moves with no command typed: Cli moved into a room alone stops receiving Hana
  (its report empties), and everyone returned brings her back.
"""

import json
import queue
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import CAUCUS  # noqa: E402  (the path is set just above)
from chromium_page import PAGE, ServerAndBrowser, browser_log, call, write_picture, write_tone  # noqa: E402

SESSION = "client-media"
CONVERGE_SECONDS = 45
HANA = {"tone": 440, "colour": [220, 40, 40], "size": [160, 120]}
CLI_TONE = 660
CLI_SIZE = [320, 240]
# The pattern's mean colour (TestPattern.meanColour at 320x240: the bar is an eighth of the width).
CLI_COLOUR = [40 * 7 / 8 + 240 / 8, 60 * 7 / 8 + 240 / 8, 200 * 7 / 8 + 240 / 8]
PALETTE = {"Hana": {"tone": HANA["tone"], "colour": HANA["colour"]}, "Cli": {"tone": CLI_TONE, "colour": CLI_COLOUR}}


class CaucusClientMediaTests(ServerAndBrowser, unittest.TestCase):
    fixtures_prefix = "caucus-client-media-"

    @classmethod
    def write_fixtures(cls, folder):
        write_tone(folder / "tone.wav", HANA["tone"])
        write_picture(folder / "picture.y4m", HANA["colour"], size=tuple(HANA["size"]))

    def setUp(self):
        self.client = None
        self.lines = queue.Queue()
        self.output = []

    def tearDown(self):
        if self.client is not None:
            # The end of its input makes the client leave and exit.
            self.client.stdin.close()
            try:
                self.client.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.client.kill()
                self.client.wait()
            self.client.stdout.close()

    # The caucus client ------------------------------------------------------------------------

    def start_client(self):
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        command = [
            str(CAUCUS), "client", "--session", SESSION, "--name", "Cli", "--url", ws_url, "--data", self.server.data,
            "--publish-tone", "--tone-hertz", str(CLI_TONE), "--publish-pattern", "--pattern-size", "x".join(map(str, CLI_SIZE)),
            "--media-report", "json",
        ]
        self.client = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def read():
            for line in self.client.stdout:
                self.output.append(line)
                self.lines.put(line)

        threading.Thread(target=read, daemon=True).start()

    def next_report(self, deadline):
        """The client's next JSON media report (a list of rows), or None once `deadline` passed."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line.startswith('{"media"'):
                return json.loads(line)["media"]

    def wait_for_report(self, what, predicate):
        """Reads the client's reports until `predicate(rows)` holds; fails after CONVERGE_SECONDS
        with the last report and the client's output."""
        deadline = time.monotonic() + CONVERGE_SECONDS
        last = None
        while True:
            rows = self.next_report(deadline)
            if rows is None:
                self.fail(f"{what}: not within {CONVERGE_SECONDS} s; last report {last}\n{''.join(self.output[-30:])}")
            last = rows
            if predicate(rows):
                return rows

    # The page -----------------------------------------------------------------------------

    def call(self, expression, *arguments):
        return call(self.driver, expression, *arguments)

    def request(self, op, **arguments):
        return self.call("window.caucus.request(args[0], args[1], args[2])", "Hana", op, arguments)

    def chromium_decoded(self, since_ms):
        """kind -> label -> what Hana's page measured of it since `since_ms` (frame sizes for
        video, frequencies for audio)."""
        report = self.call("window.caucus.report(args[0])", since_ms)
        decoded = {"audio": {}, "video": {}}
        for slot in report["peers"]["Hana"]["slots"]:
            for label, measures in slot["measures"].items():
                decoded[slot["kind"]].setdefault(label, []).extend(measures)
        return decoded

    # The scenario ---------------------------------------------------------------------------

    def test_client_receives_chromium_and_chromium_decodes_the_client(self):
        self.driver.get(PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        token = self.server.token(SESSION, "host", "Hana")
        hana = self.call("window.caucus.join(args[0])", {"name": "Hana", "wsURL": ws_url, "session": SESSION, "token": token, "role": "host", "palette": PALETTE})
        self.call("window.caucus.startMedia(args[0], args[1])", "Hana", {"audioSlots": 3, "videoSlots": 3, "source": "fake-device", "size": HANA["size"], **PALETTE["Hana"]})
        self.start_client()

        def hana_row(rows):
            return next((row for row in rows if row["user"] == f"u{hana}" or row["user"] == hana), None)

        def hana_plausible(rows):
            row = hana_row(rows)
            return (row is not None and row["name"] == "Hana" and row.get("video") is not None and row["video"]["fps"] > 5
                    and [row["video"]["width"], row["video"]["height"]] == HANA["size"]
                    and row.get("audio") is not None and row["audio"]["fps"] > 25 and -30 < row["audio"]["dBFS"] < -3)

        rows = self.wait_for_report("Cli decodes Hana's video at > 5 fps, 160x120, and her tone", hana_plausible)
        self.assertEqual(hana_row(rows)["undecodable"], 0, rows)
        # Users by name and ID, never slots: Hana is the only other user, so the only row.
        self.assertEqual(len(rows), 1, rows)

        # Chromium decodes Cli's pattern (its size and mean colour) and hears its tone.
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            decoded = self.chromium_decoded(self.call("window.caucus.now()") - 2000)
            sizes = decoded["video"].get("Cli", [])
            tones = decoded["audio"].get("Cli", [])
            if len(sizes) >= 5 and tones:
                break
            if time.monotonic() > deadline:
                self.fail(f"Chromium did not decode Cli's pattern and tone: {decoded}\n{browser_log(self.driver)}")
            time.sleep(0.25)
        self.assertTrue(all(size == CLI_SIZE for size in sizes), sizes)
        self.assertTrue(all(abs(frequency - CLI_TONE) < 20 for frequency in tones), tones)

        # A move, and nothing typed into the client: alone in a room it receives nobody...
        cli = next(user["id"] for user in self.request("getSnapshot")["snapshot"]["users"] if user["name"] == "Cli")
        self.request("addToPreList", names=["Side"])
        self.request("preAssign", users=[cli], name="Side")
        self.request("commit")
        self.request("start", autoMove=True)
        self.wait_for_report("Cli, alone in a room, receives nobody", lambda rows: rows == [])
        # ... and back in the main session it receives Hana again.
        self.request("returnEveryone")
        self.wait_for_report("Cli receives Hana again after returning", hana_plausible)


if __name__ == "__main__":
    unittest.main()
