"""Simulcast with a real browser: a Chromium publisher sends its camera as two layers (RIDs `l`,
a quarter of the picture, and `h`, the whole), as an app asks with `sendEncodings`; its offer
names no SSRC for them. The server answers both layers, learns their SSRCs from the RID
extension and forwards one: the one carrying the most. A Chromium subscriber and an aiortc
subscriber each watch it on one video slot.

Asserted: Chromium sends both layers; both subscribers decode the publisher's picture; and the
Chromium subscriber comes to show it at the full size (the `h` layer), once the publisher's
congestion control, fed by the server's transport-cc feedback, lets it send that layer."""

import asyncio
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from chromium_page import PAGE, ServerAndBrowser, browser_log, call, write_picture, write_tone  # noqa: E402
from media_peers import Peer  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

SESSION = "media-simulcast"
COLOUR = [200, 60, 60]
FULL = (640, 360)
QUARTER = (320, 180)
WATCH_SECONDS = 25
POLL_SECONDS = 0.5


class SimulcastTests(ServerAndBrowser, AsyncioTestCase):
    fixtures_prefix = "caucus-simulcast-"

    @classmethod
    def write_fixtures(cls, folder):
        write_tone(folder / "tone.wav", 440)
        write_picture(folder / "picture.y4m", COLOUR, size=FULL)

    async def page(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def asyncTearDown(self):
        await self.page("window.caucus.close()")
        await self.abe.close()

    async def test_a_simulcast_publisher_is_seen_at_its_best_layer(self):
        asyncio.get_running_loop().set_debug(False)
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        ws_url = self.server.base.replace("http", "ws") + "/ws"
        palette = {"Pia": {"tone": 440, "colour": COLOUR}, "Sol": {"tone": 1300, "colour": [40, 200, 40]}, "Abe": {"tone": 900, "colour": [40, 40, 220]}}
        users = {}
        for name in ("Pia", "Sol"):
            options = {"name": name, "wsURL": ws_url, "session": SESSION, "token": self.server.token(SESSION, "participant", name),
                       "role": "participant", "palette": palette}
            users[name] = await self.page("window.caucus.join(args[0])", options)
        self.abe = Peer(self.server, SESSION, "Abe", "participant", 900, (40, 40, 220),
                        {name: (look["tone"], tuple(look["colour"])) for name, look in palette.items()}, size=(64, 48))
        await self.abe.join()
        encodings = [{"rid": "l", "scaleResolutionDownBy": 2}, {"rid": "h"}]
        await self.page("window.caucus.startMedia(args[0], args[1])", "Pia",
                        {"audioSlots": 0, "videoSlots": 0, "source": "fake-device", "size": list(FULL), "simulcast": encodings})
        await self.page("window.caucus.startMedia(args[0], args[1])", "Sol",
                        {"audioSlots": 0, "videoSlots": 1, "source": "synthetic", "tone": 1300, "colour": [40, 200, 40], "size": [64, 48]})
        await self.abe.start_media(0, 1)

        start_page, start_here = await self.page("window.caucus.now()"), time.monotonic()
        deadline = time.monotonic() + WATCH_SECONDS
        while True:
            report = await self.page("window.caucus.report(args[0])", start_page)
            sizes = {tuple(size) for slot in report["peers"]["Sol"]["slots"] for size in slot["measures"].get("Pia", []) if size}
            abe_sees = "Pia" in self.abe.seen(start_here)
            if (FULL in sizes and abe_sees) or time.monotonic() > deadline:
                break
            await asyncio.sleep(POLL_SECONDS)
        sending = await self.page("window.caucus.sending(args[0])", "Pia")
        summary = f"\nPia sends {sending}\nSol shows Pia at {sorted(sizes)}; Abe sees Pia: {abe_sees}"
        print(summary, file=sys.stderr)

        failures = []
        if sorted(sending["layers"]) != ["h", "l"] or not all(layer["bytesSent"] for layer in sending["layers"].values()):
            failures.append(f"Chromium does not send both layers: {sending['layers']}")
        if not sizes:
            failures.append("Sol never decoded Pia's picture")
        elif FULL not in sizes:
            failures.append(f"Sol never saw Pia's full layer {FULL}, only {sorted(sizes)}")
        if not abe_sees:
            failures.append("Abe (aiortc) never decoded Pia's picture")
        if failures:
            self.fail("\n".join(failures) + summary + "\n" + browser_log(self.driver)[-3000:])


if __name__ == "__main__":
    unittest.main()
