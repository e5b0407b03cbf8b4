"""A full breakout round in the web console: a host and two participants, each in their own
headless Chromium, against a real `caucus serve` on its development app.

Run after `swift build`: python3 -m unittest discover -s Tests/ConsoleTests -v
"""

import re
import time
import unittest

import jwt
from selenium.webdriver.common.by import By

from console_support import CaucusServer, ConsoleTestCase, Page, css_for, http_json

SESSION = "Workshop"


class ConsoleRoundTests(ConsoleTestCase):
    def test_a_host_and_two_participants_run_a_full_breakout_round(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")

        # The host starts the session at "/" in one click; the others join by its participant link.
        host.join(SESSION, "Ann", "host")
        self.assertIn("invite=", host.driver.current_url, "the host's page becomes its host link")
        host.wait_text(css_for("status"), "No rooms yet")
        bo.join(SESSION, "Bo", "participant")
        col.join(SESSION, "Col", "participant")
        for participant in (bo, col):
            participant.wait_text(css_for("my-location"), "Main session")
            participant.wait_text(css_for("room-choices"), "No breakout rooms yet.")

        # The host sees everyone live.
        host.wait_visible(css_for("user-row", userName="Bo"))
        host.wait_visible(css_for("user-row", userName="Col"))
        # Participants choose rooms only once the host lets them (off in a new session).
        col.wait_text(css_for("room-choices"), "No breakout rooms yet.")
        self.assertFalse(host.find(css_for("setting-self-select")).is_selected(), "self-select is on in a new session")
        host.click(css_for("setting-self-select"))
        host.wait(lambda: host.find(css_for("setting-self-select")).is_selected(), "self-select on")

        # Plan: two rooms; Bo pre-assigned by selection, Col by drag and drop; commit.
        host.type(css_for("plan-names"), "Red, Blue")
        host.click(css_for("plan-add"))
        red_plan, blue_plan = css_for("plan-room", room="Red"), css_for("plan-room", room="Blue")
        host.wait_visible(red_plan)
        host.wait_visible(blue_plan)
        host.choose(f"{red_plan} {css_for('plan-assign-select')}", "Bo")
        host.click(f"{red_plan} {css_for('plan-assign-button')}")
        host.wait_text(f"{red_plan} {css_for('plan-assigned')}", "Bo")
        host.drag(css_for("user-chip", userName="Col"), blue_plan)
        host.wait_text(f"{blue_plan} {css_for('plan-assigned')}", "Col")
        host.click(css_for("commit"))
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "Rooms ready")
        host.wait_text(css_for("room-assigned"), "Planned: Bo")
        bo.wait_text(css_for("room-choices"), "The rooms are ready but not open yet.")

        # Start with a duration: the timer counts down and both participants are in their rooms.
        # A warning 598 s before the end of 10 minutes comes two seconds after the start (the
        # settings change and the start go in order on one connection).
        host.type(css_for("setting-warnings"), "598")
        host.click(css_for("setting-warnings-save"))
        host.type(css_for("start-minutes"), "10")
        host.click(css_for("start"))
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "Rooms open")
        host.wait(lambda: (host.text(css_for("timer")) or "").startswith("Ends in 9:") or host.text(css_for("timer")) == "Ends in 10:00",
                  "the timer to count down from 10 minutes")
        bo.wait_text(css_for("timer"), "Ends in")
        bo.wait_text(css_for("my-location"), "Red")
        col.wait_text(css_for("my-location"), "Blue")
        host.wait_text(f"{css_for('room-card', room='Red')} {css_for('room-occupants')}", "Bo")
        host.wait_text(f"{css_for('room-card', room='Blue')} {css_for('room-occupants')}", "Col")

        for participant in (bo, col):
            participant.wait_text(css_for("timer-warning"), "Timer warning: 598 seconds left.")
        # Extended after its warning (an extension re-arms warnings still ahead).
        host.type(css_for("extend-minutes"), "5")
        host.click(css_for("extend"))
        for page in (host, bo):
            page.wait_text(css_for("timer"), "Ends in 14:")
        # Each page's model, built only from its snapshot and events, is the server's state.
        self.assert_models_agree(SESSION)

        # Room chat stays in its room.
        col.send_chat("Hello Blue")
        col.wait_text(css_for("chat-log"), "Col: Hello Blue")

        # Col chooses another room (the host turned self-select on), and the host sees the switch.
        col.click(f"{css_for('room-choice', room='Red')} {css_for('join-room')}")
        col.wait_text(css_for("my-location"), "Red")
        bo.wait_text(css_for("room-people"), "Col")
        host.wait_text(f"{css_for('room-card', room='Red')} {css_for('room-occupants')}", "Col")
        host.wait_text(css_for("notices"), "Col switched to Red.")
        host.wait(lambda: "switched rooms" in (host.find(css_for("overview-person", userName="Col")).get_attribute("data-flags") or ""),
                  "Col marked as switched in the overview")

        # Bo asks for help; the host sees the request in the queue.
        bo.click(css_for("request-help"))
        bo.wait_text(css_for("help-status"), "waiting for the host")
        host.wait_text(css_for("help-request", requester="Bo"), "Bo in Red")
        screenshot = host.screenshot("host-round.png")
        self.assertTrue(screenshot.exists(), f"no screenshot at {screenshot}")
        bo.screenshot("participant-round.png")

        # The host answers by joining Red.
        host.click(f"{css_for('help-request', requester='Bo')} {css_for('help-join')}")
        bo.wait_text(css_for("help-status"), "Ann is joining your room")
        host.wait_text(css_for("help-queue"), "Nobody is asking for help.")
        host.wait_text(f"{css_for('user-row', userName='Ann')} {css_for('user-location')}", "Red")
        bo.wait_text(css_for("room-people"), "Ann")

        # A broadcast reaches every room.
        host.type(css_for("broadcast-text"), "Five minutes left")
        host.click(css_for("broadcast-send"))
        for participant in (bo, col):
            participant.wait_text(css_for("broadcast-banner"), "Broadcast from Ann: Five minutes left")
        self.assertNotIn("Hello Blue", bo.text(css_for("chat-log")), "Blue's chat reached Bo in Red")

        # Parent controls answer.
        host.click(css_for("pause-parent"))
        host.wait_text(css_for("pause-parent"), "Resume main session")
        host.click(css_for("mute-parent"))
        host.wait_text(css_for("mute-parent"), "Unmute main session")

        # Stop with a short countdown, shown to everyone; then everyone is back in the main session.
        host.type(css_for("stop-countdown"), "5")
        host.click(css_for("stop"))
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "Rooms closing")
            page.wait_text(css_for("timer"), "Everyone returns in 0:0")
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "Rooms closed")
        for participant in (bo, col):
            participant.wait_text(css_for("my-location"), "Main session")
            participant.wait_text(css_for("room-choices"), "The rooms are closed.")
        for name in ("Ann", "Bo", "Col"):
            host.wait_text(f"{css_for('user-row', userName=name)} {css_for('user-location')}", "Main session")
        host.wait_text(css_for("pause-parent"), "Pause main session")
        host.wait_text(css_for("overview"), "Main session")
        self.assert_models_agree(SESSION)

        for page in self.pages:
            page.assert_no_error()

    def test_a_private_session_asks_for_its_password_on_the_same_connection(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Private", "Ann", "host", password="sesame")
        bo.fill_join_form("Private", "Bo", "participant")
        bo.click(css_for("join"))
        bo.wait_text(css_for("inline-error"), "This session is private: enter its password.")
        self.assertEqual(bo.find(css_for("inline-error")).get_attribute("data-code"), "2010")
        bo.wait_text(css_for("password-hint"), "This session is private")
        bo.type(css_for("password"), "guess")
        bo.click(css_for("join"))
        bo.wait_text(css_for("inline-error"), "Wrong password: try again.")
        bo.type(css_for("password"), "sesame")
        bo.click(css_for("join"))
        bo.wait_joined("Bo", "participant")
        bo.assert_no_error()
        host.wait_visible(css_for("user-row", userName="Bo"))

    def test_create_and_invite_with_invitations_accepted_and_declined_then_clear_and_destroy_all_and_a_manager(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Lab", "Ann", "host")
        bo.join("Lab", "Bo", "participant")
        col.join("Lab", "Col", "participant")
        host.wait_visible(css_for("user-row", userName="Col"))
        host.click(css_for("setting-self-select"))
        host.wait(lambda: host.find(css_for("setting-self-select")).is_selected(), "self-select on")

        # Two rooms, the two participants invited one to each.
        host.open_details(f'{css_for("quick-rooms")} summary')
        host.type(css_for("create-count"), "2")
        host.click(css_for("create-and-invite"))
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "Rooms open")
        host.wait_visible(css_for("room-card", room="Room 1"))
        host.wait_visible(css_for("room-card", room="Room 2"))
        bo.wait_text(css_for("invitation"), "You are invited to Room")
        col.wait_text(css_for("invitation"), "You are invited to Room")
        bo_room = re.search(r"Room \d+", bo.text(css_for("invitation"))).group(0)
        col_room = re.search(r"Room \d+", col.text(css_for("invitation"))).group(0)
        self.assertEqual({bo_room, col_room}, {"Room 1", "Room 2"}, "invitations should be balanced")

        bo.click(css_for("accept-invitation"))
        bo.wait_text(css_for("my-location"), bo_room)
        bo.wait(lambda: not bo.visible(css_for("invitation")), "the invitation to go once accepted")
        col.click(css_for("reject-invitation"))
        col.wait(lambda: not col.visible(css_for("invitation")), "the invitation to go once declined")
        col.wait_text(css_for("my-location"), "Main session")
        host.wait_text(css_for("notices"), f"Col declined {col_room}.")
        host.wait_text(f"{css_for('room-card', room=bo_room)} {css_for('room-occupants')}", "Bo")

        # Bo returns by himself, then chooses his room again.
        bo.click(css_for("return-main"))
        bo.wait_text(css_for("my-location"), "Main session")
        bo.click(f"{css_for('room-choice', room=bo_room)} {css_for('join-room')}")
        bo.wait_text(css_for("my-location"), bo_room)

        # A help request the host ignores.
        bo.click(css_for("request-help"))
        host.click(f"{css_for('help-request', requester='Bo')} {css_for('help-ignore')}")
        bo.wait_text(css_for("help-status"), "Ann cannot come right now.")
        host.wait_text(css_for("help-queue"), "Nobody is asking for help.")

        # The host moves Col by the People picker and sends him back.
        host.choose(f"{css_for('user-row', userName='Col')} {css_for('user-move-select')}", col_room)
        col.wait_text(css_for("my-location"), col_room)
        host.click(f"{css_for('user-row', userName='Col')} {css_for('user-send-back')}")
        col.wait_text(css_for("my-location"), "Main session")

        # With self-select off, participants no longer choose.
        host.click(css_for("setting-self-select"))
        col.wait_text(css_for("room-choices"), "The host assigns rooms.")
        self.assertFalse(col.visible(css_for("join-room")), "no Join button while self-select is off")

        # Col is made a manager: he gets the host's view (without the plan), learns of the help
        # request made before, and answers it by joining Bo.
        bo.click(css_for("request-help"))
        host.wait_text(css_for("help-request", requester="Bo"), f"Bo in {bo_room}")
        host.click(f"{css_for('user-row', userName='Col')} {css_for('user-manager')}")
        col.wait_visible(css_for("host-view"))
        col.wait_text(css_for("session-title"), "Col (manager)")
        self.assertFalse(col.visible(css_for("plan-section")), "the plan is the host's alone")
        col.wait_text(css_for("help-request", requester="Bo"), f"Bo in {bo_room}")
        col.click(f"{css_for('help-request', requester='Bo')} {css_for('help-join')}")
        bo.wait_text(css_for("help-status"), "Col is joining your room")
        bo.wait_text(css_for("room-people"), "Col")
        host.wait_text(css_for("help-queue"), "Nobody is asking for help.")

        # Clear all: rooms stay, everyone is back.
        host.click(css_for("clear-all"))
        bo.wait_text(css_for("my-location"), "Main session")
        host.wait_text(f"{css_for('user-row', userName='Col')} {css_for('user-location')}", "Main session")
        host.wait_text(css_for("status"), "Rooms open")
        bo.wait_text(css_for("room-choices"), bo_room)
        self.assert_models_agree("Lab")

        # Col is a participant again.
        host.wait_text(f"{css_for('user-row', userName='Col')} {css_for('user-manager')}", "Revoke manager")
        host.click(f"{css_for('user-row', userName='Col')} {css_for('user-manager')}")
        col.wait_visible(css_for("participant-view"))
        col.wait_text(css_for("session-title"), "Col (participant)")
        col.wait_text(css_for("my-location"), "Main session")

        # Destroy all: the rooms are gone.
        host.click(css_for("destroy-all"))
        host.click(css_for("confirm-destroy"))
        for page in (host, bo, col):
            page.wait_text(css_for("status"), "No rooms")
        bo.wait_text(css_for("room-choices"), "No breakout rooms yet.")
        host.wait_text(css_for("rooms"), "No rooms yet")

        for page in self.pages:
            page.assert_no_error()

    def test_a_dropped_participant_resumes_and_catches_up(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Resume", "Ann", "host")
        bo.join("Resume", "Bo", "participant")
        host.wait_visible(css_for("user-row", userName="Bo"))

        bo.go_offline()
        bo.wait_text(css_for("connection-state"), "reconnecting")
        host.wait_text(css_for("user-row", userName="Bo"), "reconnecting")
        host.send_chat("Bo, are you there?")
        host.wait_text(css_for("chat-log"), "Ann (Host): Bo, are you there?")

        # Back online: the console resumes its seat and replays what it missed.
        bo.go_online()
        bo.wait_text(css_for("connection-state"), "connected")
        bo.wait_text(css_for("chat-log"), "Ann (Host): Bo, are you there?")
        host.wait(lambda: "reconnecting" not in host.text(css_for("user-row", userName="Bo")), "Bo to be back")
        bo.wait_text(css_for("session-title"), "Bo (participant)")
        self.assert_models_agree("Resume")
        bo.assert_no_error()

    def test_a_refusal_shows_its_code_and_the_development_helpers_are_labelled(self):
        host = self.page("host Ann")
        host.join("Solo", "Ann", "host")
        # Committing an empty plan is refused by the server: the page says why, next to the button.
        host.click(css_for("commit"))
        host.wait_text(css_for("inline-error"), "The plan has no rooms yet: add rooms first.")
        self.assertEqual(host.find(css_for("inline-error")).get_attribute("data-code"), "4006")
        self.assertIn("Development only", host.text(css_for("dev-banner")))
        self.assertEqual(http_json(self.server.base + "/console/dev"), {"development": True})


class ConfiguredAppsTests(unittest.TestCase):
    """On a server with production apps the console has no development helpers: the app
    mints tokens, and the page never asks for the app's key or secret."""

    APP = {"key": "school", "secret": "school-secret-for-the-console-test"}

    def setUp(self):
        self.server = CaucusServer(apps=[self.APP])
        self.addCleanup(self.server.stop)

    def test_the_development_helpers_are_off_and_a_token_from_the_app_joins(self):
        host = Page("host Ann", self.server.base)
        self.addCleanup(host.quit)
        host.driver.get(self.server.base + "/")
        host.wait(lambda: host.find("body").get_attribute("data-development") == "off", "the development check")
        for helper in ("dev-banner", "create-form"):
            self.assertFalse(host.visible(css_for(helper)), f"{helper} shows without the development app")

        now = int(time.time())
        token = jwt.encode({"app_key": self.APP["key"], "tpc": "Class", "role_type": 1, "version": 1, "iat": now, "exp": now + 3600},
                           self.APP["secret"], algorithm="HS256")
        host.type(css_for("session-name"), "Class")
        host.type(css_for("user-name"), "Ann")
        host.type(css_for("token"), token)
        host.click(css_for("join"))
        host.wait_joined("Ann", "host")
        self.assertEqual(host.driver.find_elements(By.CSS_SELECTOR, "input[type=password][data-testid^=app]"), [], "the page asks for the app's secret")
        self.assertIn("session=Class", host.find(css_for("invite-link")).get_attribute("value"))

        host.assert_no_error()


if __name__ == "__main__":
    unittest.main()
