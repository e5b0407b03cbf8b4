"""The console as a meeting page (issue 24): a host and three participants in four headless
Chromiums with fake camera and microphone (--use-fake-device-for-media-stream). Before,
during and after a breakout each page shows exactly the tiles of the people in its own
location, and each tile plays: its <video> decodes frames (videoWidth > 0 and
getVideoPlaybackQuality().totalVideoFrames rising) and getStats reports inbound audio from
that person (audioLevel > 0). A mute shows on the others' pages, a move switches tiles with no
new offer and the time from the host's click to each moved page showing exactly its new
tiles, all playing, is measured and printed; a reload resumes the seat and the media, and a
refused camera leaves a clear message and a page that still chats, and an offer refused
for another user's SSRC (7102) is made once more with new ones. Who speaks is the server's
list (the slot map frame's activeSpeakers), shown on every tile it names unless muted. axe-core finds no serious or critical violation on the
host's and a participant's page, desktop and phone; screenshots of each state are written."""

import json
import re
import time
import unittest

from console_support import ConsoleTestCase, css_for, SCREENSHOTS
from accessibility import assert_accessible

SESSION = "Meeting"
# A move switches tiles within a second (the words).
MOVE_SECONDS = 1.0

# Keeps every slot map frame's activeSpeakers as the page receives it, beside the console's
# own handling of the frame: both listeners run in the one task that delivers the message, so
# a script run afterwards sees the page as the console drew it from that same list.
RECORD_SPEAKERS = """
(() => {
  const Real = window.WebSocket;
  window.__activeSpeakers = [];
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        try {
          const frame = JSON.parse(event.data);
          if (Array.isArray(frame.media?.activeSpeakers)) window.__activeSpeakers = frame.media.activeSpeakers;
        } catch {}
      });
    }
  };
})();
"""

# Makes the page's first mediaOffer send from `TAKEN` (another user's SSRC) in place of its
# audio sender's own, as a browser whose random pick collided would; keeps each mediaOffer's
# SDP as sent and its outcome as the server answers it ("answered", or the error's code and
# name), and every RTCPeerConnection the page makes.
COLLIDE_FIRST_OFFER = """
(() => {
  const RealPeerConnection = window.RTCPeerConnection;
  window.__peerConnections = [];
  window.RTCPeerConnection = class extends RealPeerConnection {
    constructor(...args) {
      super(...args);
      window.__peerConnections.push(this);
    }
  };
  const Real = window.WebSocket;
  window.__offerOutcomes = [];
  window.__offersSent = [];
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.offerIDs = new Set();
      this.addEventListener("message", (event) => {
        try {
          const frame = JSON.parse(event.data);
          if (!this.offerIDs.has(frame.re)) return;
          window.__offerOutcomes.push(frame.error ? `${frame.error.code} ${frame.error.name}` : "answered");
        } catch {}
      });
    }
    send(text) {
      try {
        const request = JSON.parse(text);
        if (request.op === "mediaOffer") {
          this.offerIDs.add(request.id);
          if (!window.__collided) {
            window.__collided = true;
            const own = request.sdp.match(/a=ssrc:(\\d+) /)[1];
            request.sdp = request.sdp.replaceAll(`a=ssrc:${own} `, "a=ssrc:TAKEN ");
            text = JSON.stringify(request);
          }
          window.__offersSent.push(request.sdp);
        }
      } catch {}
      super.send(text);
    }
  };
})();
"""

# Watches, every 10 ms, for the page to show exactly `expected`'s tiles with every other
# person's video decoding (videoWidth > 0) and a new frame since the tiles became right
# (totalVideoFrames rising); then keeps the time (Date.now(): the pages share the machine's
# clock with the host's page that clicked).
WATCH_TILES = """
const expected = [...arguments[0]].sort().join("\\n");
const watch = { ready: null, baseline: null };
window.__tilesWatch = watch;
watch.timer = setInterval(() => {
  const view = document.querySelector('[data-testid="host-view"]:not([hidden]), [data-testid="participant-view"]:not([hidden])');
  const tiles = [...(view?.querySelectorAll('[data-testid="tile"]') ?? [])];
  if (tiles.map((tile) => tile.dataset.userName).sort().join("\\n") !== expected) { watch.baseline = null; return; }
  const you = window.caucusConsole.model.you;
  const videos = tiles.filter((tile) => Number(tile.dataset.user) !== you).map((tile) => tile.querySelector("video"));
  const frames = videos.map((video) => video.getVideoPlaybackQuality().totalVideoFrames);
  if (!watch.baseline || videos.some((video) => video.videoWidth === 0)) { watch.baseline = frames; return; }
  if (frames.every((count, index) => count > watch.baseline[index])) { watch.ready = Date.now(); clearInterval(watch.timer); }
}, 10);
"""


class MediaPageTests(ConsoleTestCase):
    def tiles(self, page):
        """The tiles of the view on show: name, muted, and what its video decodes."""
        return page.driver.execute_script(
            """
            const view = document.querySelector('[data-testid="host-view"]:not([hidden]), [data-testid="participant-view"]:not([hidden])');
            return [...(view?.querySelectorAll('[data-testid="tile"]') ?? [])].map((tile) => {
              const video = tile.querySelector("video");
              return { name: tile.dataset.userName, muted: tile.dataset.muted, label: tile.getAttribute("aria-label"),
                       width: video.videoWidth, frames: video.getVideoPlaybackQuality().totalVideoFrames };
            });
            """)

    def media_report(self, page):
        return page.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.caucusConsole.media.report().then((report) => done(JSON.stringify(report)), (error) => done(JSON.stringify({error: String(error)})));")

    def wait_tiles(self, page, names):
        """Exactly these people's tiles, in any order."""
        page.wait(lambda: sorted(tile["name"] for tile in self.tiles(page)) == sorted(names),
                  f"tiles of {sorted(names)} (shown: {[tile['name'] for tile in self.tiles(page)]})")

    def wait_playing(self, page, others):
        """Each other person's tile decodes new frames, and their audio arrives with a level."""
        page.wait(lambda: all(tile["width"] > 0 for tile in self.tiles(page) if tile["name"] in others),
                  f"video of {others} to decode")
        before = {tile["name"]: tile["frames"] for tile in self.tiles(page)}
        page.wait(lambda: all(tile["frames"] > before[tile["name"]] for tile in self.tiles(page) if tile["name"] in others),
                  f"video frames of {others} to keep coming")
        users = {user["name"]: user["id"] for user in page.model()["users"]}
        heard = set()

        def all_heard():
            report = json.loads(self.media_report(page))
            for slot in report["slots"]:
                if slot["kind"] == "audio" and slot["user"] is not None and (slot["audioLevel"] or 0) > 0:
                    heard.add(slot["user"])
            return all(users[name] in heard for name in others)

        page.wait(all_heard, f"audio of {others} with a level above 0 (heard: {heard})")

    def offers(self, page):
        """mediaOffers sent and getUserMedia calls (permission prompts) since `count_offers`."""
        return page.driver.execute_script("return [window.__offers ?? 0, window.__prompts ?? 0];")

    def count_offers(self, page):
        page.driver.execute_script(
            """
            window.__offers = 0;
            window.__prompts = 0;
            const ask = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
            navigator.mediaDevices.getUserMedia = (constraints) => { window.__prompts += 1; return ask(constraints); };
            const connection = window.caucusConsole.connection;
            const send = connection.send.bind(connection);
            connection.send = (op, args) => { if (op === "mediaOffer") window.__offers += 1; return send(op, args); };
            """)

    def watch_tiles(self, pages_and_tiles):
        """Starts each page's watch for exactly its expected tiles, all playing."""
        for page, expected in pages_and_tiles:
            page.driver.execute_script(WATCH_TILES, expected)

    def click_timed(self, page, selector):
        """Clicks in the page itself and returns the time of the click (Date.now())."""
        page.wait(lambda: page.find(selector).is_enabled() and page.find(selector).is_displayed(), f"{selector} to be clickable")
        return page.driver.execute_script("const at = Date.now(); arguments[0].click(); return at;", page.find(selector))

    def switch_times(self, pages_and_tiles, clicked_at, what):
        """Waits for each watched page's tiles; prints and returns the seconds from the click."""
        times = {}
        for page, expected in pages_and_tiles:
            page.wait(lambda page=page: page.driver.execute_script("return window.__tilesWatch.ready;") is not None,
                      f"exactly the tiles of {sorted(expected)}, every one playing")
            times[page.who] = (page.driver.execute_script("return window.__tilesWatch.ready;") - clicked_at) / 1000
        print(f"\n{what}: tiles exactly right and every one playing, seconds after the click: "
              + ", ".join(f"{who} {seconds:.2f}" for who, seconds in times.items()))
        # The "within a second": measured at 0.1–0.4 s on a shared two-core machine
        # under load (another build running), so the bound leaves a wide margin.
        for who, seconds in times.items():
            self.assertLess(seconds, MOVE_SECONDS, f"{who}'s tiles took {seconds:.2f} s after {what}")
        return times

    def speaking_sample(self, page):
        """Each tile on show: whether the server's last list names its person, muted, shown
        speaking, and its words (accessible name and visible state)."""
        return page.driver.execute_script(
            """
            const view = document.querySelector('[data-testid="host-view"]:not([hidden]), [data-testid="participant-view"]:not([hidden])');
            const listed = window.__activeSpeakers;
            return [...view.querySelectorAll('[data-testid="tile"]')].map((tile) => ({
              name: tile.dataset.userName, listed: listed.includes(Number(tile.dataset.user)), muted: tile.dataset.muted === "true",
              speaking: tile.dataset.speaking === "true", ring: tile.classList.contains("speaking"),
              label: tile.getAttribute("aria-label"), state: tile.querySelector('[data-testid="tile-state"]').textContent }));
            """)

    def assert_speaking_follows_the_list(self, page, always=(), never=()):
        """On this page now: a tile shows speaking (ring, visible word, accessible name)
        exactly when the server's last list names its person and the person is not muted."""
        for tile in self.speaking_sample(page):
            shown = tile["listed"] and not tile["muted"]
            context = f"{page.who}, {tile['name']}'s tile: {tile}"
            self.assertEqual(tile["speaking"], shown, context)
            self.assertEqual(tile["ring"], shown, context)
            self.assertEqual("speaking" in tile["label"], shown, context)
            self.assertEqual("speaking" in tile["state"], shown, context)
            if tile["name"] in always:
                self.assertTrue(tile["speaking"], context)
            if tile["name"] in never:
                self.assertFalse(tile["speaking"], context)

    def test_who_speaks_is_the_servers_list_on_every_page_never_a_muted_user(self):
        pages = host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        scripts = [page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SPEAKERS})["identifier"] for page in pages]
        try:
            host.join("Speakers", "Ann", "host")
            bo.join("Speakers", "Bo", "participant")
            col.join("Speakers", "Col", "participant")
            # Col mutes at once; every fake microphone beeps, so Ann and Bo are ranked.
            col.click(css_for("toggle-mic"))
            col.wait(lambda: col.find(css_for("toggle-mic")).get_attribute("aria-pressed") == "true", "Col's mute button pressed")
            for page in pages:
                self.wait_tiles(page, ["Ann", "Bo", "Col"])
            for page in (host, col):
                page.wait(lambda page=page: page.find(css_for("tile", userName="Bo")).get_attribute("data-speaking") == "true", "Bo shown speaking")
            host.wait(lambda: "speaking" in (host.find(css_for("overview-person", userName="Bo")).get_attribute("data-flags") or "").split(","),
                      "Bo speaking in the host's overview")
            # The list holds while they beep (the server keeps a speaker until someone louder
            # comes): every page shows it, the same on each, and never Col.
            for _ in range(12):
                for page in pages:
                    self.assert_speaking_follows_the_list(page, always=["Bo"], never=["Col"])
                time.sleep(0.25)
            host.screenshot("media-speaking.png")
            flags = host.find(css_for("overview-person", userName="Col")).get_attribute("data-flags").split(",")
            self.assertIn("muted", flags)
            self.assertNotIn("speaking", flags)

            # Bo mutes: his tile stops showing him speaking at once on the others' pages, and
            # the server drops him from its list (a muted microphone publishes no audio).
            bo.click(css_for("toggle-mic"))
            bo_id = next(user["id"] for user in bo.model()["users"] if user["name"] == "Bo")
            for page in (host, col):
                page.wait(lambda page=page: page.find(css_for("tile", userName="Bo")).get_attribute("data-speaking") == "false", "Bo no longer shown speaking")
                page.wait(lambda page=page: bo_id not in page.driver.execute_script("return window.__activeSpeakers;"), "the server's list without Bo")
            for _ in range(8):
                for page in pages:
                    self.assert_speaking_follows_the_list(page, never=["Bo", "Col"])
                time.sleep(0.25)
            host.wait(lambda: "speaking" not in host.find(css_for("overview-person", userName="Bo")).get_attribute("data-flags").split(","),
                      "Bo not speaking in the overview")
            self.assertIn("muted", host.find(css_for("overview-person", userName="Bo")).get_attribute("data-flags").split(","))
        finally:
            for page, script in zip(pages, scripts):
                page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})

    def test_tiles_follow_the_rooms_play_mute_show_moves_switch_and_a_reload_resumes_the_media(self):
        host, bo, col, dee = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col"), self.page("participant Dee")
        host.join(SESSION, "Ann", "host")
        for page, name in ((bo, "Bo"), (col, "Col"), (dee, "Dee")):
            page.join(SESSION, name, "participant")
        everyone = ["Ann", "Bo", "Col", "Dee"]

        # Before: everyone in the main session sees and hears everyone.
        for page, me in ((host, "Ann"), (bo, "Bo"), (col, "Col"), (dee, "Dee")):
            self.wait_tiles(page, everyone)
            self.wait_playing(page, [name for name in everyone if name != me])
        # Who speaks (the fake microphone beeps): a ring on the tile, and a flag in the host's overview.
        for page in (host, dee):
            page.wait(lambda page=page: page.find(css_for("tile", userName="Bo")).get_attribute("data-speaking") == "true", "Bo shown speaking")
        host.wait(lambda: "speaking" in (host.find(css_for("overview-person", userName="Bo")).get_attribute("data-flags") or ""),
                  "Bo speaking in the host's overview")
        host.screenshot("media-host-main.png")
        bo.screenshot("media-participant-main.png")

        # A mute shows on the others' pages, and on one's own button.
        bo.click(css_for("toggle-mic"))
        bo.wait(lambda: bo.find(css_for("toggle-mic")).get_attribute("aria-pressed") == "true", "Bo's mute button pressed")
        for page in (host, col, dee):
            page.wait(lambda page=page: any(tile["name"] == "Bo" and tile["muted"] == "true" for tile in self.tiles(page)), "Bo shown muted")
            self.assertIn("muted", next(tile["label"] for tile in self.tiles(page) if tile["name"] == "Bo"))
        # Muted, Bo is never shown speaking, however his microphone beeps.
        for _ in range(8):
            self.assertEqual(host.find(css_for("tile", userName="Bo")).get_attribute("data-speaking"), "false")
            time.sleep(0.25)
        bo.click(css_for("toggle-mic"))
        for page in (host, col, dee):
            page.wait(lambda page=page: any(tile["name"] == "Bo" and tile["muted"] == "false" for tile in self.tiles(page)), "Bo unmuted")

        # A screen share is shown large on the others' pages, and goes when it stops.
        bo.click(css_for("toggle-screen"))
        bo.wait(lambda: bo.find(css_for("toggle-screen")).get_attribute("aria-pressed") == "true", "Bo's share button pressed")
        for page in (host, col, dee):
            page.wait(lambda page=page: page.driver.execute_script(
                "const f = document.querySelector('.view:not([hidden]) [data-testid=screen-share]');"
                "return !f.hidden && f.querySelector('video').videoWidth > 0 && f.textContent.includes('Bo is sharing');"),
                "Bo's screen, large and decoding")
        host.screenshot("media-host-screen-share.png")
        bo.click(css_for("toggle-screen"))
        for page in (host, col, dee):
            page.wait_gone(f".view:not([hidden]) {css_for('screen-share')}", "the shared screen to go")

        # During: Bo and Col in Red, Dee in Blue, the host in the main session.
        for page in (bo, col, dee):
            self.count_offers(page)
        host.type(css_for("plan-names"), "Red, Blue")
        host.click(css_for("plan-add"))
        red, blue = css_for("plan-room", room="Red"), css_for("plan-room", room="Blue")
        host.wait_visible(blue)
        for name, room in (("Bo", red), ("Col", red), ("Dee", blue)):
            host.choose(f"{room} {css_for('plan-assign-select')}", name)
            host.click(f"{room} {css_for('plan-assign-button')}")
            host.wait_text(f"{room} {css_for('plan-assigned')}", name)
        host.click(css_for("commit"))
        host.wait_text(css_for("status"), "Rooms ready")
        # How long each moved page takes, from the host's click, to show exactly its room's
        # tiles, every one playing (printed: a figure of this machine, not a limit).
        moved = [(bo, ["Bo", "Col"]), (col, ["Bo", "Col"]), (dee, ["Dee"])]
        self.watch_tiles(moved)
        clicked = self.click_timed(host, css_for("start"))
        self.switch_times(moved, clicked, "Start")
        self.wait_tiles(host, ["Ann"])
        self.wait_playing(bo, ["Col"])
        self.wait_playing(col, ["Bo"])
        for page in (bo, col, dee):
            self.assertEqual(self.offers(page), [0, 0], f"{page.who} made a new offer or asked for the devices again to move")
        # (The overview is redrawn as people speak: read it with waits.)
        host.wait_text(css_for("overview-room", room="Red"), "Bo")
        host.wait_text(css_for("overview-room", room="Red"), "Col")
        host.wait_text(css_for("overview-room", room="Blue"), "Dee")
        host.screenshot("media-host-breakout.png")
        # A muted main session says so where the host is.
        host.click(css_for("mute-parent"))
        host.wait_text(css_for("media-note"), "off")
        host.click(css_for("mute-parent"))
        host.wait_gone(css_for("media-note"), "the note to go with the mute")
        col.screenshot("media-participant-breakout.png")

        # A reload mid-breakout: the same seat in Red, and the media again.
        col_id = col.model()["users"]
        col.reload()
        col.wait_joined("Col", "participant")
        col.wait_text(css_for("my-location"), "Red")
        self.wait_tiles(col, ["Bo", "Col"])
        self.wait_playing(col, ["Bo"])
        self.wait_playing(bo, ["Col"])
        users = self.server_view(SESSION)["users"]
        self.assertEqual(sorted(user["name"] for user in users), everyone, "a reload left a second seat")
        self.assertEqual(sorted((user["id"], user["name"]) for user in col_id), sorted((user["id"], user["name"]) for user in col.model()["users"]))

        # The phone layout of a participant in a room, and accessibility of both views.
        for page in (host, col):
            assert_accessible(self, page, f"{page.who} in a breakout, desktop")
            page.phone()
            page.scroll_top()
            self.assertLessEqual(page.page_width(), 390, f"{page.who}'s page is wider than the phone")
            page.screenshot(f"media-{'host' if page is host else 'participant'}-breakout-phone.png")
            assert_accessible(self, page, f"{page.who} in a breakout, phone")
            page.desktop()

        # A move command: Dee from Blue into Red; Dee's page and Red's two others change tiles.
        joined = [(dee, ["Bo", "Col", "Dee"]), (bo, ["Bo", "Col", "Dee"]), (col, ["Bo", "Col", "Dee"])]
        self.watch_tiles(joined)
        host.choose(f"{css_for('room-card', room='Red')} {css_for('room-assign-select')}", "Dee")
        clicked = self.click_timed(host, f"{css_for('room-card', room='Red')} {css_for('room-assign-button')}")
        self.switch_times(joined, clicked, "Dee moved into Red")
        self.wait_playing(dee, ["Bo", "Col"])

        # After: everyone back, all tiles again.
        host.type(css_for("stop-countdown"), "0")
        host.click(css_for("stop"))
        for page, me in ((host, "Ann"), (bo, "Bo"), (col, "Col"), (dee, "Dee")):
            self.wait_tiles(page, everyone)
        self.wait_playing(dee, ["Ann", "Bo", "Col"])
        host.screenshot("media-host-after.png")
        for page in self.pages:
            page.assert_no_error()

    def test_a_host_mutes_a_participant_whose_page_turns_its_microphone_off(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Muting", "Ann", "host")
        bo.join("Muting", "Bo", "participant")
        self.wait_tiles(host, ["Ann", "Bo"])
        self.wait_playing(host, ["Bo"])
        bo_id = next(user["id"] for user in host.model()["users"] if user["name"] == "Bo")
        # The host mutes Bo (muteUser, as the SDK's audioHelper.mute(user:) sends it).
        outcome = host.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.caucusConsole.connection.request('muteUser', {user: arguments[0], media: ['audio']})"
            ".then(() => done('ok'), (error) => done(String(error?.name ?? error)));", bo_id)
        self.assertEqual(outcome, "ok")
        # Bo's page turns its microphone off: its button says so, and it publishes no audio.
        bo.wait(lambda: bo.find(css_for("toggle-mic")).get_attribute("aria-pressed") == "true", "Bo's mute button pressed")
        self.assertNotIn("audio", json.loads(self.media_report(bo))["publishing"])
        host.wait(lambda: any(tile["name"] == "Bo" and tile["muted"] == "true" for tile in self.tiles(host)), "Bo shown muted to the host")
        # Turning his camera off and on publishes what is on: still no audio.
        bo.click(css_for("toggle-camera"))
        bo.click(css_for("toggle-camera"))
        bo.wait(lambda: bo.find(css_for("toggle-camera")).get_attribute("aria-pressed") == "false", "Bo's camera on again")
        time.sleep(0.5)
        self.assertTrue(any(tile["name"] == "Bo" and tile["muted"] == "true" for tile in self.tiles(host)), "Bo unmuted by his camera")
        # Only Bo unmutes himself.
        bo.click(css_for("toggle-mic"))
        host.wait(lambda: any(tile["name"] == "Bo" and tile["muted"] == "false" for tile in self.tiles(host)), "Bo unmuted")

    def test_an_offer_refused_for_another_users_ssrc_is_made_again_with_new_ones(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Collision", "Ann", "host")
        host.wait(lambda: host.driver.execute_script("return window.caucusConsole.media.pc?.remoteDescription != null;"),
                  "Ann's offer answered")
        ann_sdp = host.driver.execute_script("return window.caucusConsole.media.pc.localDescription.sdp;")
        taken = re.search(r"a=ssrc:(\d+) ", ann_sdp).group(1)
        script = bo.driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": COLLIDE_FIRST_OFFER.replace("TAKEN", taken)})["identifier"]
        try:
            bo.join("Collision", "Bo", "participant")
            # The server refuses the offer that sends from Ann's SSRC; the page offers once more
            # from a new RTCPeerConnection, whose SSRCs are its own.
            bo.wait(lambda: len(bo.driver.execute_script("return window.__offerOutcomes;")) >= 2, "Bo's second offer answered")
            self.assertEqual(bo.driver.execute_script("return window.__offerOutcomes;"), ["7102 mediaOfferRefused", "answered"])
            refused, answered = bo.driver.execute_script("return window.__offersSent;")
            self.assertIn(f"a=ssrc:{taken} ", refused)
            self.assertNotIn(f"a=ssrc:{taken} ", answered)
            # The second offer came from a connection of its own; the refused one is closed.
            states = lambda: bo.driver.execute_script("return window.__peerConnections.map((pc) => pc.signalingState);")
            bo.wait(lambda: states() == ["closed", "stable"], f"the refused connection closed, the second answered ({states()})")
            self.assertTrue(bo.driver.execute_script("return window.caucusConsole.media.pc === window.__peerConnections[1];"))
            self.assertIsNone(json.loads(self.media_report(bo))["problem"])
            # Each sees and hears the other: neither stream was taken by the refused offer.
            self.wait_tiles(bo, ["Ann", "Bo"])
            self.wait_playing(bo, ["Ann"])
            self.wait_playing(host, ["Bo"])
            self.assertFalse(bo.visible(css_for("media-problem")), "Bo's page shows a media problem")
        finally:
            bo.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})

    def test_a_refused_camera_says_so_and_the_page_still_chats(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Refused", "Ann", "host")
        # Bo's browser refuses the camera and microphone, as a person pressing Block would.
        bo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("Permission denied", "NotAllowedError"));
        """})
        try:
            bo.join("Refused", "Bo", "participant")
            bo.wait_text(css_for("media-problem"), "blocked")
            self.assertIn("chat", bo.text(css_for("media-problem")))
            self.assertFalse(bo.find(css_for("toggle-mic")).is_enabled(), "a mute button with no microphone")
            # Bo still sees the host, and chats.
            self.wait_tiles(bo, ["Ann", "Bo"])
            self.wait_playing(bo, ["Ann"])
            bo.send_chat("No camera here")
            host.wait_text(css_for("chat-log"), "Bo: No camera here")
            host.wait(lambda: any(tile["name"] == "Bo" and tile["muted"] == "true" for tile in self.tiles(host)), "Bo shown muted to the host")
            bo.screenshot("media-refused.png")
            assert_accessible(self, bo, "a participant without camera")
        finally:
            bo.driver.quit()
            self.browsers.remove(bo)


if __name__ == "__main__":
    unittest.main()
