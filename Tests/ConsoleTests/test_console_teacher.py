"""The teacher's page (issue 38, item 4): the Breakout card shows only what applies before
rooms exist; Speak to every room says it uses the microphone; focus never falls to <body>
after joining and Start is never focused under the sticky top bar; the teacher's own move of
a student is not flagged as a switch; stale banners clear ("You were moved to Red." in the
countdown, "Help: Ann is joining your room." once she has been and gone, Extend off without a
timer); a class opened again from its host link keeps self-select off."""

from accessibility import assert_accessible
from console_support import ConsoleTestCase, css_for


def room(name):
    return css_for("room-card", room=name)


def focused(page):
    return page.driver.execute_script(
        "const a = document.activeElement; return a ? (a.dataset.testid || a.tagName) : 'NONE';")


class TeacherPageTests(ConsoleTestCase):
    def wait_status(self, page, status):
        page.wait(lambda: page.find(css_for("status")).get_attribute("data-status") == status, f"the status {status}")

    def test_the_teachers_page_shows_what_applies_keeps_focus_and_drops_stale_banners(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Desk 38", "Ann", "host")
        self.assertNotEqual(focused(host), "BODY", "focus fell to <body> after starting the session")
        # Before rooms exist: no Stop, Extend, pause or Remove all rooms.
        for testid in ("stop", "extend", "pause-parent", "mute-parent", "clear-all", "destroy-all"):
            self.assertFalse(host.visible(css_for(testid)), f"{testid} shown before any rooms exist")
        self.assertTrue(host.visible(css_for("start")))
        self.assertIn("microphone", host.text(css_for("voice-broadcast-hint")))
        described = host.find(css_for("voice-broadcast")).get_attribute("aria-describedby")
        self.assertEqual(described, host.find(css_for("voice-broadcast-hint")).get_attribute("id"))
        assert_accessible(self, host, "the teacher's page before any rooms")
        bo.join("Desk 38", "Bo", "participant")
        self.assertNotEqual(focused(bo), "BODY", "focus fell to <body> after joining")
        col.join("Desk 38", "Col", "participant")
        host.wait_visible(css_for("user-row", userName="Col"))

        host.plan_and_confirm(["Red", "Blue"], {"Bo": "Red", "Col": "Blue"})
        host.wait_visible(css_for("stop"))
        self.assertFalse(host.find(css_for("extend")).is_enabled(), "Extend usable with no timer")
        # Start focused from the bottom of the page comes to rest below the top bar, not under it.
        for size in ((390, 844), (1280, 800)):
            host.desktop(*size)
            host.driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight);")
            host.driver.execute_script("document.activeElement?.blur(); arguments[0].focus();", host.find(css_for("start")))
            bar = host.driver.execute_script("return document.querySelector('.topbar').getBoundingClientRect().bottom;")
            self.assertGreaterEqual(host.box(css_for("start"))["top"], bar, f"Start focused under the top bar at {size}")
        host.scroll_top()
        host.type(css_for("start-minutes"), "10")
        host.click(css_for("start"))
        bo.wait_text(css_for("my-location"), "Red")
        bo.wait_text(css_for("moved-banner"), "You were moved to Red.")
        self.assertTrue(host.find(css_for("extend")).is_enabled(), "Extend off while the timer runs")

        # The teacher moves Col into Red herself: no "switched rooms", no "Col switched".
        host.choose(f"{css_for('user-row', userName='Col')} {css_for('user-move-select')}", "Red")
        col.wait_text(css_for("my-location"), "Red")
        host.wait(lambda: host.find(css_for("overview-person", userName="Col")) is not None, "Col in the overview")
        host.wait_text(room("Red"), "Col")
        flags = host.find(css_for("overview-person", userName="Col")).get_attribute("data-flags")
        self.assertNotIn("switched rooms", flags)
        self.assertNotIn("Col switched", host.text(css_for("notices")))

        # Help: "Ann is joining your room" holds while she comes, and goes once she has left.
        bo.click(css_for("request-help"))
        host.wait_visible(css_for("help-join"))
        host.click(css_for("help-join"))
        bo.wait_text(css_for("help-status"), "Help: Ann is joining your room.")
        host.wait_visible(f"{room('Red')} {css_for('room-leave')}")
        host.click(f"{room('Red')} {css_for('room-leave')}")
        bo.wait(lambda: "joining your room" not in (bo.text(css_for("help-status")) or ""), "the help answer to go after Ann left")

        # The closing countdown: "You were moved to Red." goes; Extend is off, and says nothing stale.
        host.type(css_for("stop-countdown"), "60")
        host.click(css_for("stop"))
        self.wait_status(bo, "stopping")
        bo.wait_gone(css_for("moved-banner"), "the moved banner to go in the countdown")
        host.wait(lambda: not host.find(css_for("extend")).is_enabled(), "Extend off in the countdown")
        self.assertFalse(host.visible(css_for("inline-error")), "a refusal shown in the countdown")
        for page in (host, bo):
            assert_accessible(self, page, f"{page.who} in the closing countdown")
        host.click(css_for("clear-all"))
        self.wait_status(host, "stopped")
        for page in self.pages:
            page.assert_no_error()

    def test_a_class_opened_again_from_its_host_link_keeps_self_select_off(self):
        host = self.page("host Ann")
        host.join("Reopened", "Ann", "host")
        host_link = host.find(css_for("host-link")).get_attribute("value")
        self.assertFalse(self.server_view("Reopened")["settings"]["selfSelectAllowed"])
        host.click(css_for("leave"))
        host.click(css_for("leave-confirm"))  # alone: leaving ends it
        host.wait_text(css_for("status"), "Ended")
        self.assertNotEqual(focused(host), "BODY", "focus fell to <body> when the session ended")
        host.driver.get(host_link)
        host.wait_visible(css_for("join-form"))
        host.type(css_for("user-name"), "Ann")
        host.click(css_for("join"))
        host.wait_joined("Ann", "host")
        self.assertNotEqual(focused(host), "BODY", "focus fell to <body> after joining")
        host.wait(lambda: self.server_view("Reopened")["settings"]["selfSelectAllowed"] is False,
                  "self-select off in the class opened again")
        self.assertFalse(host.find(css_for("setting-self-select")).is_selected())
