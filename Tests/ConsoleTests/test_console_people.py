"""People are who they say (issue 38): a teacher sees every join, mutes and removes one student
from her page, and the removed student's browser is not let back in with the class link; a
second "Ms Rivera" is refused; the host and managers are named as such in words. The teacher's
page: listen-in plays the listened room's video (frames rising) and sound; and a participant's
shared screen (getDisplayMedia with Chromium's fake capture) is decoded on another page.
Headless Chromium with fake camera and microphone; axe-core on every page state visited."""

import json

import test_console_media as media_tests
from accessibility import assert_accessible
from console_support import ConsoleTestCase, Page, css_for


def row(name):
    return css_for("user-row", userName=name)


def room(name):
    return css_for("room-card", room=name)


def focused_tag(page):
    return page.driver.execute_script("return document.activeElement ? document.activeElement.tagName : 'NONE';")


class PeopleTests(ConsoleTestCase):
    # The media helpers of the meeting-page tests (tiles, frames rising, audio levels).
    tiles = media_tests.MediaPageTests.tiles
    media_report = media_tests.MediaPageTests.media_report
    wait_tiles = media_tests.MediaPageTests.wait_tiles
    wait_playing = media_tests.MediaPageTests.wait_playing

    def server_users(self, session):
        return {user["name"]: user for user in self.server_view(session)["users"]}

    def inline_error_code(self, page):
        errors = page.driver.find_elements("css selector", css_for("inline-error"))
        return errors[0].get_attribute("data-code") if errors and errors[0].is_displayed() else None

    def test_a_teacher_mutes_and_removes_a_student_whose_browser_the_link_no_longer_admits(self):
        host, bo, col = self.page("host Ms Rivera"), self.page("participant Bo"), self.page("participant Col")
        host.join("Period 5", "Ms Rivera", "host")
        bo.join("Period 5", "Bo", "participant")
        col.join("Period 5", "Col", "participant")
        # Every join shows on the teacher's page, and the host is named in words everywhere.
        host.wait_visible(row("Bo"))
        host.wait_visible(row("Col"))
        self.wait_tiles(bo, ["Ms Rivera", "Bo", "Col"])
        teacher_tile = next(tile for tile in self.tiles(bo) if tile["name"] == "Ms Rivera")
        self.assertTrue(teacher_tile["label"].startswith("Ms Rivera (Host):"), teacher_tile["label"])
        bo.wait(lambda: "Ms Rivera (Host)" in bo.text(css_for("room-people")), "the host named (Host) in Bo's list of people")
        host.wait(lambda: "Ms Rivera (you) (Host)" in host.text(css_for("tiles")), "the host's own tile says (Host)")
        assert_accessible(self, host, "the teacher's page with three people")

        # Mute: Bo's microphone goes off, and only Bo can turn it on again.
        mute = f"{row('Bo')} {css_for('user-mute')}"
        host.wait(lambda: host.find(mute).get_attribute("aria-disabled") is None, "Bo's microphone to be on (Mute usable)")
        self.assertEqual(host.find(mute).get_attribute("aria-label"), "Mute Bo")
        host.click(mute)
        bo.wait(lambda: bo.find(css_for("toggle-mic")).get_attribute("aria-pressed") == "true", "Bo's Mute pressed by the host's mute")
        host.wait_text(mute, "Muted")
        self.assertNotIn("audio", self.server_users("Period 5")["Bo"].get("publishing", []))
        self.assertNotEqual(focused_tag(host), "BODY", "focus fell to <body> after muting")

        # Remove: asked first; Col is gone from every page and from the server.
        host.click(f"{row('Col')} {css_for('user-remove')}")
        host.wait_visible(css_for("confirm-remove"))
        self.assertEqual(focused_tag(host), "BUTTON", "the question has focus")
        host.click(css_for("confirm-remove"))
        host.wait_gone(row("Col"), "Col's row to go after the removal")
        self.assertNotEqual(focused_tag(host), "BODY", "focus fell to <body> after confirming the removal")
        col.wait_text(css_for("closed"), "You were removed from the session.")
        bo.wait(lambda: "Col" not in [tile["name"] for tile in self.tiles(bo)], "Col's tile to go from Bo's page")
        self.assertNotIn("Col", self.server_users("Period 5"))

        # The same browser, with the same link: not let in, under any name.
        for name in ("Col", "Colin"):
            col.fill_join_form("Period 5", name)
            col.click(css_for("join"))
            col.wait(lambda: self.inline_error_code(col) == "2031", f"the join as {name} refused with 2031")
            self.assertIn("The host removed you from this session", col.text(css_for("inline-error")))
        users = self.server_users("Period 5")
        self.assertEqual(sorted(users), ["Bo", "Ms Rivera"], "a removed browser joined again")
        assert_accessible(self, col, "a removed student's refused join")
        assert_accessible(self, host, "the teacher's page after a removal")
        for page in (host, bo):
            page.assert_no_error()

    def test_a_fourth_ms_rivera_is_refused_and_the_host_is_named_in_words(self):
        host, mal = self.page("host Ms Rivera"), self.page("participant Mal")
        host.join("Period 6", "Ms Rivera", "host")
        mal.join("Period 6", "Mal", "participant")
        other = self.page("participant impostor")
        # The joins: "Ms Rivera" again, however written, is refused on the page, in words.
        for name in ("Ms Rivera", "ms rivera", "MS  RIVERA "):
            other.fill_join_form("Period 6", name)
            other.click(css_for("join"))
            other.wait(lambda: self.inline_error_code(other) == "2030", f"the join as {name!r} refused with 2030")
            self.assertIn("already has that name", other.text(css_for("inline-error")))
        assert_accessible(self, other, "a refused join (name taken)")
        # A name that ends with the host's mark is refused, in words: only the host reads as the host.
        for name in ("Ms Rivera (Host)", "ms rivera ( host )"):
            other.fill_join_form("Period 6", name)
            other.click(css_for("join"))
            other.wait(lambda: self.inline_error_code(other) == "2033", f"the join as {name!r} refused with 2033")
            self.assertIn("may not end with a role", other.text(css_for("inline-error")))
        # A name that says more is another name; the real host is the one named (Host).
        other.fill_join_form("Period 6", "Ms Rivera (teacher)")
        other.click(css_for("join"))
        other.wait_joined("Ms Rivera (teacher)", "participant")
        users = self.server_users("Period 6")
        self.assertEqual(sorted(users), ["Mal", "Ms Rivera", "Ms Rivera (teacher)"])
        for page in (host, mal, other):
            page.wait(lambda: any(tile["label"].startswith("Ms Rivera (Host):") or tile["label"].startswith("Ms Rivera (you) (Host):")
                                  for tile in self.tiles(page)), f"{page.who}: the host's tile says (Host)")
            labels = [tile["label"] for tile in self.tiles(page)]
            self.assertFalse(any(label.startswith("Ms Rivera (teacher) (Host)") for label in labels), labels)
        self.assertIn("Ms Rivera (Host)", mal.text(css_for("room-people")))
        # In chat too, the role is the session's: the host's line says (Host), the other Ms Rivera's does not.
        host.send_chat("Welcome, everyone")
        mal.wait_text(css_for("chat-log"), "Ms Rivera (Host): Welcome, everyone")
        other.send_chat("Hello from me")
        mal.wait_text(css_for("chat-log"), "Ms Rivera (teacher): Hello from me")
        self.assertNotIn("Ms Rivera (teacher) (Host)", mal.text(css_for("chat-log")))
        # A manager is named too, on the host's list and tiles.
        host.click(f"{row('Mal')} {css_for('user-manager')}")
        host.wait(lambda: "Mal (Manager)" in host.text(css_for("people")), "Mal named (Manager) in the host's list")
        mal.wait(lambda: any(tile["label"].startswith("Mal (you) (Manager):") for tile in self.tiles(mal)), "Mal's own tile says (Manager)")
        # A rename to a name that is taken is refused by the server, whoever asks.
        outcome = other.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.caucusConsole.connection.request('rename', {user: window.caucusConsole.model.you, name: 'MS RIVERA'})"
            ".then(() => done('ok'), (error) => done(String(error?.code)));")
        self.assertEqual(outcome, "2030")

    def test_listen_in_plays_the_listened_rooms_video_and_sound(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Listening", "Ann", "host")
        bo.join("Listening", "Bo", "participant")
        col.join("Listening", "Col", "participant")
        host.plan_and_confirm(["Red", "Blue"], {"Bo": "Red", "Col": "Blue"})
        host.desktop(1280, 800)
        host.scroll_top()
        host.click(css_for("start"))
        bo.wait_text(css_for("my-location"), "Red")
        # The rooms overview comes into view when the rooms open.
        overview = '[aria-labelledby="overview-heading"]'
        height = host.driver.execute_script("return window.innerHeight;")
        host.wait(lambda: 0 <= host.box(overview)["top"] <= height * 0.6,
                  f"the rooms overview in view after Start (its top at {host.box(overview)['top']} of {height})")
        # Focus went with it, not left on Start under the top bar.
        bar = host.driver.execute_script("return document.querySelector('.topbar').getBoundingClientRect().bottom;")
        active = host.driver.execute_script("const r = document.activeElement.getBoundingClientRect(); return {top: r.top, tag: document.activeElement.tagName};")
        self.assertNotEqual(active["tag"], "BODY")
        self.assertGreaterEqual(active["top"], bar - 1, f"the focused element is under the top bar: {active}")
        self.wait_tiles(host, ["Ann"])

        host.click(f"{room('Red')} {css_for('room-listen')}")
        host.wait_text(css_for("listening-banner"), "You are listening in to Red.")
        # The teacher's page shows Red's people, and their video and sound play.
        self.wait_tiles(host, ["Bo"])
        self.wait_playing(host, ["Bo"])
        host.wait(lambda: "listening in to red" in host.text(css_for("tiles")).lower(), "the tiles say whom they show")
        assert_accessible(self, host, "the teacher listening in to a room")
        # Blue's people are not shown, and stopping brings back her own place.
        self.assertNotIn("Col", [tile["name"] for tile in self.tiles(host)])
        host.click(f"{room('Red')} {css_for('room-listen')}")
        self.wait_tiles(host, ["Ann"])
        for page in (host, bo, col):
            page.assert_no_error()

    def test_a_shared_screen_is_decoded_on_another_page(self):
        # A browser whose screen capture needs no person: the fake UI picks the screen.
        sharer = Page("participant Bo (sharing)", self.server.base,
                      ("--auto-select-desktop-capture-source=Entire screen", "--enable-usermedia-screen-capturing"))
        self.addCleanup(sharer.quit)
        sharer.reset("participant Bo (sharing)")
        host = self.page("host Ann")
        host.join("Sharing", "Ann", "host")
        sharer.join("Sharing", "Bo", "participant")
        self.wait_tiles(host, ["Ann", "Bo"])
        sharer.wait(lambda: not sharer.find(css_for("toggle-screen")).get_attribute("disabled"), "Share screen usable")
        sharer.click(css_for("toggle-screen"))
        sharer.wait(lambda: sharer.find(css_for("toggle-screen")).get_attribute("aria-pressed") == "true", "Share screen pressed")
        self.assertIn("screenShare", json.loads(self.media_report(sharer))["publishing"])

        def screen(page):
            return page.driver.execute_script(
                """
                const view = document.querySelector('[data-testid="host-view"]:not([hidden]), [data-testid="participant-view"]:not([hidden])');
                const figure = view.querySelector('[data-testid="screen-share"]');
                const video = figure.querySelector("video");
                return { shown: !figure.hidden, caption: figure.textContent, width: video.videoWidth,
                         frames: video.getVideoPlaybackQuality().totalVideoFrames };
                """)

        host.wait(lambda: screen(host)["shown"] and screen(host)["width"] > 0, "Bo's screen decoded on the host's page")
        self.assertIn("Bo is sharing a screen", screen(host)["caption"])
        before = screen(host)["frames"]
        host.wait(lambda: screen(host)["frames"] > before + 2, "the shared screen's frames to keep coming")
        assert_accessible(self, host, "a page showing a shared screen")
        sharer.click(css_for("toggle-screen"))
        host.wait(lambda: not screen(host)["shown"], "the shared screen to go after the stop")
