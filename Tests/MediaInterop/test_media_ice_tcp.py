"""ICE over TCP (RFC 6544) with a real browser: a Chromium user whose network blocks UDP (its page
removes the answer's UDP candidate, so ICE can only use the server's passive TCP candidate) and
a Chromium user on UDP, in one session of one `caucus serve`, each publishing a tone and a colour
of its own. Each decodes the other's audio (FFT peak within 2 % of the tone) and video (frames
of the sent colour and size), and the first one's selected candidate pair is TCP."""

import asyncio
import statistics
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from chromium_page import PAGE, ServerAndBrowser, browser_log, call  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

SESSION = "media-ice-tcp"
USERS = {
    "Tara": {"tcpOnly": True, "tone": 600, "colour": [200, 40, 160], "size": [128, 96]},
    "Udo": {"tcpOnly": False, "tone": 900, "colour": [40, 180, 200], "size": [96, 64]},
}
CONVERGE_SECONDS = 30
RECENT_SECONDS = 2.0
MIN_READINGS = 4
TONE_TOLERANCE = 0.02


class MediaOverTCPInChromiumTests(ServerAndBrowser, AsyncioTestCase):
    fixtures_prefix = "caucus-ice-tcp-"

    async def page(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    def problems(self, report):
        """What each user does not yet decode of the other, or an empty list."""
        found = []
        for subscriber in USERS:
            publisher = next(name for name in USERS if name != subscriber)
            sent = USERS[publisher]
            measures = {"audio": [], "video": []}
            for slot in report["peers"][subscriber]["slots"]:
                measures[slot["kind"]] += [m for m in slot["measures"].get(publisher, []) if m is not None]
            video, audio = measures["video"], measures["audio"]
            if len(video) < MIN_READINGS or {tuple(m) for m in video} != {tuple(sent["size"])}:
                found.append(f"{subscriber} decodes {len(video)} frames of {publisher}'s colour (sizes {sorted({tuple(m) for m in video})})")
            if len(audio) < MIN_READINGS or abs(statistics.median(audio) - sent["tone"]) > TONE_TOLERANCE * sent["tone"]:
                found.append(f"{subscriber} hears {publisher}'s tone {len(audio)} times (median {statistics.median(audio) if audio else None})")
        return found

    async def test_a_browser_without_udp_exchanges_audio_and_video_over_tcp(self):
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        palette = {name: {"tone": user["tone"], "colour": user["colour"]} for name, user in USERS.items()}
        for index, name in enumerate(USERS):
            role = "host" if index == 0 else "participant"
            options = {"name": name, "wsURL": ws_url, "session": SESSION, "token": self.server.token(SESSION, role, name),
                       "role": role, "palette": palette}
            await self.page("window.caucus.join(args[0])", options)
        for name, user in USERS.items():
            options = {"audioSlots": 1, "videoSlots": 1, "source": "synthetic", "tone": user["tone"], "colour": user["colour"],
                       "size": user["size"], "tcpOnly": user["tcpOnly"]}
            await self.page("window.caucus.startMedia(args[0], args[1])", name, options)

        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            now = await self.page("window.caucus.now()")
            report = await self.page("window.caucus.report(args[0])", now - RECENT_SECONDS * 1000)
            problems = self.problems(report)
            if not problems:
                break
            if time.monotonic() > deadline:
                self.fail("\n".join(problems) + "\n" + browser_log(self.driver)[-3000:])
            await asyncio.sleep(0.3)
        self.assertEqual(await self.page("window.caucus.selectedProtocol(args[0])", "Tara"), "tcp", "Tara's media goes over TCP")
        self.assertEqual(await self.page("window.caucus.selectedProtocol(args[0])", "Udo"), "udp", "Udo's over UDP")


if __name__ == "__main__":
    unittest.main()
