"""The console as a teacher and three students use it (issue 11): each test is a defect seen
when a real class tried it, and fails on the console from before the fix.

Run after `swift build`: python3 -m unittest discover -s Tests/ConsoleTests -v
"""

import re

from console_support import ConsoleTestCase, css_for

# Words of the protocol that the page must never show to people.
JARGON = re.compile(r"\b(none|committed|withdrawn|subsessions?|pre-list|wrongStatus|timedOut|startFailed|commitFailed|\(left\))\b|\b\d{4} [a-z]+[A-Z]")


def room(name, testid="room-card"):
    return css_for(testid, room=name)


class ClassroomTests(ConsoleTestCase):

    def plan_and_start(self, host, rooms, placed, minutes="10"):
        """The host plans `rooms`, puts each of `placed` ({name: room}) in one, confirms and starts."""
        host.plan_and_confirm(rooms, placed)
        host.type(css_for("start-minutes"), minutes)
        host.click(css_for("start"))
        self.wait_status(host, "started")

    def open_quick_rooms(self, host):
        if host.driver.find_elements("css selector", css_for("quick-rooms")):  # folded since issue 11
            host.open_details(f'{css_for("quick-rooms")} summary')

    def class_in_red_and_blue(self, session):
        """Ann hosts `session`; Bo is in Red, Col in Blue, the rooms open."""
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join(session, "Ann", "host")
        bo.join(session, "Bo", "participant")
        col.join(session, "Col", "participant")
        self.plan_and_start(host, ["Red", "Blue"], {"Bo": "Red", "Col": "Blue"})
        bo.wait_text(css_for("my-location"), "Red")
        return host, bo, col

    def wait_status(self, page, status):
        """By the status's name on the badge (the words it shows are tested elsewhere)."""
        page.wait(lambda: page.find(css_for("status")).get_attribute("data-status") == status, f"the status {status}")

    def assert_plain_words(self, page):
        match = JARGON.search(page.body_text())
        self.assertIsNone(match, f"{page.who} shows protocol words: {match and match.group(0)!r}\n{page.body_text()}")

    def test_the_room_sees_who_listens_in_and_everyone_who_speaks_to_every_room(self):
        host, bo, col = self.class_in_red_and_blue("Listen")

        host.click(css_for("voice-broadcast"))
        for page in (bo, col):
            page.wait_text(css_for("voice-broadcast-banner"), "Ann is speaking to every room.")
        host.wait_text(css_for("voice-broadcast"), "Stop speaking to every room")
        host.click(css_for("voice-broadcast"))
        bo.wait_gone(css_for("voice-broadcast-banner"), "the voice broadcast banner to go after the stop")

        # A listener is never silent: Red shows it, Blue does not, the listener knows.
        host.click(f"{room('Red')} {css_for('room-listen')}")
        bo.wait_text(css_for("listening-banner"), "Listening in to this room: Ann.")
        host.wait_text(css_for("listening-banner"), "You are listening in to Red.")
        self.assertFalse(col.visible(css_for("listening-banner")), "Blue shows a listener of Red")
        host.click(f"{room('Red')} {css_for('room-listen')}")
        bo.wait_gone(css_for("listening-banner"), "the listening banner to go after the stop")
        for page in self.pages:
            self.assert_plain_words(page)
            page.assert_no_error()

    def test_everyone_in_a_recorded_room_sees_it_and_only_the_host_records(self):
        host, bo, col = self.class_in_red_and_blue("Record")
        col.wait_text(css_for("my-location"), "Blue")
        indicator = css_for("recording-indicator")
        for page in (bo, col):
            self.assertFalse(page.visible(indicator), f"{page.who} is told of a recording before any")
            # Participants have no record control of any kind.
            for control in ("recording-card", "record-every-room", "record-main", "record-stop-all", "room-record", "setting-managers-record"):
                self.assertFalse(page.visible(css_for(control)), f"{page.who} has the record control {control}")

        host.click(css_for("record-every-room"))
        for page in (bo, col):
            page.wait_text(indicator, "This room is being recorded.")
            element = page.find(indicator)
            self.assertEqual(element.get_attribute("role"), "status")
            self.assertEqual(element.get_attribute("aria-label"), "This room is being recorded.", "the indicator's accessible name")
        host.wait_text(css_for("recording-status"), "Recording: every room.")
        self.assertFalse(host.visible(indicator), "the host, in the main session, is told it is recorded")
        host.wait(lambda: len(host.driver.find_elements("css selector", css_for("room-recorded"))) == 2, "both room cards to say Recording")

        # One room stopped from its card: Blue's student is told, Red's still sees it.
        host.click(f"{room('Blue')} {css_for('room-record')}")
        col.wait_gone(indicator, "Blue's indicator to go when Blue stops being recorded")
        self.assertTrue(bo.visible(indicator), "Red stopped showing its recording")
        # The main session too: the host in it sees it now.
        host.click(css_for("record-main"))
        host.wait_text(indicator, "The main session is being recorded.")

        host.click(css_for("record-stop-all"))
        bo.wait_gone(indicator, "the indicator to go after the stop")
        host.wait_gone(indicator, "the host's indicator to go after the stop")
        host.wait_text(css_for("recording-status"), "Nothing is being recorded.")
        for page in self.pages:
            self.assert_plain_words(page)
            page.assert_no_error()

    def test_a_reload_resumes_the_same_seat_in_the_same_room_with_its_chat(self):
        host, bo, col = self.class_in_red_and_blue("Reload")
        bo.send_chat("Hello Red")
        bo.wait_text(css_for("chat-log"), "Bo: Hello Red")

        bo.reload()
        bo.wait_joined("Bo", "participant")
        bo.wait_text(css_for("my-location"), "Red")
        bo.wait_text(css_for("chat-title"), "Chat · Red")
        bo.wait_text(css_for("chat-log"), "Bo: Hello Red")
        bo.wait_text(css_for("connection-state"), "connected")
        self.assertFalse(bo.visible(css_for("join-form")), "the join form is back after a reload")
        # The same seat: no second Bo, and the old one is not left reconnecting.
        host.wait(lambda: "reconnecting" not in host.text(css_for("user-row", userName="Bo")), "Bo to be back")
        self.assertEqual(len(host.driver.find_elements("css selector", css_for("user-row", userName="Bo"))), 1)
        self.assertEqual(sorted(user["name"] for user in self.server_view("Reload")["users"]), ["Ann", "Bo", "Col"])
        # And still in the conversation: what Red says next reaches the reloaded page.
        host.click(f"{room('Red')} {css_for('room-enter')}")
        host.wait_text(css_for("chat-title"), "Chat · Red")
        host.send_chat("Still there, Bo?")
        bo.wait_text(css_for("chat-log"), "Ann (Host): Still there, Bo?")
        self.assert_models_agree("Reload")

    def test_the_host_leave_asks_first_offers_ending_for_everyone_and_tells_the_new_host(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Handover", "Ann", "host")
        bo.join("Handover", "Bo", "participant")
        col.join("Handover", "Col", "participant")
        host.wait_visible(css_for("user-row", userName="Col"))

        host.click(css_for("leave"))
        host.wait_visible(css_for("leave-panel"))
        self.assertIn("Bo", host.text(css_for("leave-panel")), "the host is told who will host")
        self.assertTrue(host.visible(css_for("leave-end-all")), "no way to end the session for everyone")
        self.assertIn("Ann", [user["name"] for user in self.server_view("Handover")["users"]], "Leave left without asking")
        host.click(css_for("leave-cancel"))
        host.wait_gone(css_for("leave-panel"))

        host.click(css_for("leave"))
        host.click(css_for("leave-confirm"))
        host.wait_visible(css_for("closed"))
        bo.wait_text(css_for("role-banner"), "you are the host now")
        bo.wait_visible(css_for("host-view"))
        bo.wait_text(css_for("session-title"), "Bo (host)")
        col.wait_text(css_for("notices"), "Bo is the host now.")

        # The new host ends the session for everyone.
        bo.click(css_for("leave"))
        bo.click(css_for("leave-end-all"))
        col.wait_text(css_for("closed"), "The session ended.")
        bo.wait_visible(css_for("closed"))

    def test_at_phone_width_both_pages_fit_and_long_names_do_not_break_them(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        long_name = "Col" + "o" * 197
        long_room = "Room with a very long name " + "x" * 73
        host.join("Phone", "Ann", "host")
        bo.join("Phone", "Bo", "participant")
        col.join("Phone", long_name, "participant")
        host.wait_visible(css_for("user-row", userName=long_name))
        self.plan_and_start(host, ["Red", "Blue", long_room], {"Bo": "Red", long_name: long_room})
        bo.wait_text(css_for("my-location"), "Red")
        bo.send_chat("Hi Red")
        host.type(css_for("broadcast-text"), "Ten minutes to go")
        host.click(css_for("broadcast-send"))
        bo.wait_text(css_for("broadcast-banner"), "Ten minutes to go")
        bo.click(css_for("request-help"))
        host.wait_visible(css_for("help-request", requester="Bo"))

        for page, name in ((host, "host"), (bo, "participant")):
            page.scroll_top()
            page.screenshot(f"{name}-1440x900.png")
            page.phone()
            page.scroll_top()
            page.screenshot(f"{name}-390x844.png")
            width = page.page_width()
            self.assertLessEqual(width, 390, f"{page.who}'s page is {width} px wide on a 390 px phone")
            needed = ["leave", "chat-text", "chat-send"] + (["start", "stop", "extend", "help-join"] if page is host else ["request-help", "return-main"])
            for testid in needed:
                box = page.box(css_for(testid))
                self.assertTrue(page.find(css_for(testid)).is_displayed(), f"{testid} hidden on a phone")
                self.assertGreaterEqual(box["left"], 0, f"{page.who}: {testid} starts off-screen: {box}")
                self.assertLessEqual(box["right"], 390, f"{page.who}: {testid} ends off-screen: {box}")
            page.desktop()
        col.phone()
        self.assertLessEqual(col.page_width(), 390, "a 200-character name widens the page")
        col.desktop()

    def test_inviting_one_person_with_or_without_asking_and_creating_rooms_beside_others_asks(self):
        host, bo, col, dee = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col"), self.page("participant Dee")
        host.join("Invites", "Ann", "host")
        for page, name in ((bo, "Bo"), (col, "Col"), (dee, "Dee")):
            page.join("Invites", name, "participant")
            host.wait_visible(css_for("user-row", userName=name))

        self.open_quick_rooms(host)
        host.type(css_for("create-count"), "2")
        host.type(css_for("create-capacity"), "3")
        host.click(css_for("create-rooms"))
        host.wait_text(css_for("status"), "Rooms open")
        host.wait_text(f"{room('Room 1')} {css_for('room-count')}", "0 / 3")

        # One person invited: Bo is asked, and declines; the host sees the invitation pending.
        host.choose(f"{room('Room 1')} {css_for('room-assign-select')}", "Bo")
        host.click(f"{room('Room 1')} {css_for('room-invite-button')}")
        bo.wait_text(css_for("invitation"), "You are invited to Room 1")
        host.wait_text(f"{room('Room 1')} {css_for('room-invited')}", "Bo")
        bo.click(css_for("reject-invitation"))
        bo.wait_text(css_for("notices"), "You declined Room 1.")
        self.assertNotIn("Bo declined", bo.text(css_for("notices")), "Bo is told about himself by name")
        host.wait_text(css_for("notices"), "Bo declined Room 1.")
        host.wait_gone(f"{room('Room 1')} {css_for('room-invited')}", "the declined invitation to go")

        # One person moved without asking: Col is told where he was moved.
        host.choose(f"{room('Room 2')} {css_for('room-assign-select')}", "Col")
        host.click(f"{room('Room 2')} {css_for('room-invite-force')}")
        host.click(f"{room('Room 2')} {css_for('room-invite-button')}")
        col.wait_text(css_for("my-location"), "Room 2")
        col.wait_text(css_for("moved-banner"), "You were moved to Room 2.")
        host.wait_text(f"{room('Room 2')} {css_for('room-count')}", "1 / 3")

        # Several at once: Bo and Dee ticked and moved to Room 1; then nobody is left outside a room.
        host.wait_text(css_for("unplaced"), "Bo, Dee")
        for name in ("Bo", "Dee"):
            host.click(f"{css_for('user-row', userName=name)} {css_for('user-select')}")
        host.choose(css_for("bulk-room-select"), "Room 1")
        host.click(css_for("bulk-assign"))
        bo.wait_text(css_for("my-location"), "Room 1")
        dee.wait_text(css_for("my-location"), "Room 1")
        dee.wait_text(css_for("moved-banner"), "You were moved to Room 1.")
        host.wait_text(css_for("unplaced"), "nobody")

        # Creating and inviting beside the two rooms there are asks first; replacing them
        # gives Room 1 and Room 2 again, not Room 3 and Room 4.
        host.type(css_for("create-count"), "2")
        host.click(css_for("create-and-invite"))
        host.wait_text(css_for("confirm"), "There are already 2 rooms")
        host.click(css_for("confirm-replace"))
        for page in (bo, col, dee):
            page.wait_text(css_for("invitation"), "You are invited to Room")
        names = [element.get_attribute("data-room") for element in host.driver.find_elements("css selector", css_for("room-card"))]
        self.assertEqual(names, ["Room 1", "Room 2"])
        for page in self.pages:
            self.assert_plain_words(page)
        self.assert_models_agree("Invites")

    def test_timer_warnings_typed_but_not_saved_stay_while_the_session_changes_and_a_refused_value_stays_beside_its_error(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Typing", "Ann", "host")
        field = css_for("setting-warnings")

        def shown():
            return host.driver.execute_script("return arguments[0].value", host.find(field))

        # Someone joins while the host edits: the page draws the session again, and must not put
        # the old value back (seen in CI: the field went from empty back to "60" before "598"
        # was typed, Save sent 60598, and no warning came).
        host.find(field).clear()  # as WebDriver clears: the focus leaves the field after
        bo.join("Typing", "Bo", "participant")
        host.wait_visible(css_for("user-row", userName="Bo"))
        host.find(field).send_keys("45")
        self.assertEqual(shown(), "45")
        host.find(field).send_keys(", 598")
        host.driver.execute_script("document.activeElement.blur()")
        col.join("Typing", "Col", "participant")
        host.wait_visible(css_for("user-row", userName="Col"))
        self.assertEqual(shown(), "45, 598")
        host.click(css_for("setting-warnings-save"))
        # Saved: the page opened again shows it from the server.
        host.wait(lambda: host.find(css_for("setting-warnings-save")).is_enabled(), "the save to finish")
        host.reload()
        host.wait(lambda: shown() == "45, 598", "the saved warnings after a reload")

        # A value the server refuses stays in the field beside its refusal, through an update.
        host.type(field, "45, 999999999")
        host.click(css_for("setting-warnings-save"))
        host.wait_text(css_for("inline-error"), "That setting is out of range.")
        host.click(css_for("setting-self-select"))
        host.wait(lambda: host.find(css_for("setting-self-select")).is_selected(), "self-select to be on")
        self.assertEqual(shown(), "45, 999999999")

    def test_banners_follow_the_timer_and_the_rooms_chat_stays_under_its_room_and_the_main_session_state_shows(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Banners", "Ann", "host")
        bo.join("Banners", "Bo", "participant")
        host.type(css_for("setting-warnings"), "598")
        host.click(css_for("setting-warnings-save"))
        self.plan_and_start(host, ["Red"], {"Bo": "Red"})

        # A warning goes once the timer is extended: it no longer holds.
        bo.wait_text(css_for("timer-warning"), "598 seconds left")
        host.click(css_for("extend"))
        bo.wait_text(css_for("timer"), "Ends in 14:")
        bo.wait_gone(css_for("timer-warning"), "the timer warning to go after the extension")
        bo.wait_text(css_for("moved-banner"), "You were moved to Red.")

        host.type(css_for("broadcast-text"), "Wrap up soon")
        host.click(css_for("broadcast-send"))
        bo.wait_text(css_for("broadcast-banner"), "Wrap up soon")
        bo.send_chat("Red talk")
        bo.wait_text(css_for("chat-log"), "Bo: Red talk")

        # Pause and mute of the main session reach participants, in a room and in the main session.
        host.click(css_for("pause-parent"))
        bo.wait_text(css_for("main-session-state"), "The main session is paused")
        host.click(f"{css_for('user-row', userName='Bo')} {css_for('user-send-back')}")
        bo.wait_text(css_for("my-location"), "Main session")
        bo.wait_text(css_for("moved-banner"), "brought back to the main session")
        bo.wait_text(css_for("main-session-state"), "chat here is closed")
        host.click(css_for("mute-parent"))
        bo.wait_text(css_for("main-session-state"), "muted")
        # Chat under the room one is in: Red's message is not under the main session.
        bo.wait_text(css_for("chat-title"), "Chat · Main session")
        self.assertNotIn("Red talk", bo.text(css_for("chat-log")))
        bo.open_details(f'{css_for("chat-earlier")} summary')
        bo.wait_text(css_for("chat-earlier-room", room="Red"), "Bo: Red talk")
        # A refusal is said in words next to the button that caused it.
        bo.send_chat("Can I talk?")
        bo.wait_text(css_for("inline-error"), "The main session is paused: chat there is closed")
        send, error = bo.box(css_for("chat-send")), bo.box(css_for("inline-error"))
        self.assertLess(abs(error["top"] - send["bottom"]), 60, f"the error is far from Send: {send} {error}")
        self.assertFalse(bo.visible(css_for("error")), "the refusal also went to the top of the page")

        # Removing the rooms (asked first) takes their banners with them.
        host.click(css_for("destroy-all"))
        host.wait_visible(css_for("confirm"))
        host.click(css_for("confirm-cancel"))
        self.assertEqual(self.server_view("Banners")["breakout"]["phase"]["status"], "started", "removed without asking")
        host.click(css_for("destroy-all"))
        host.click(css_for("confirm-destroy"))
        bo.wait_text(css_for("status"), "No rooms")
        bo.wait_text(css_for("notices"), "The rooms were removed.")
        for banner in ("broadcast-banner", "timer-warning", "main-session-state", "moved-banner"):
            bo.wait_gone(css_for(banner), f"{banner} to go with the rooms")
        for page in (host, bo):
            self.assert_plain_words(page)

    def test_the_host_desk_start_in_sight_no_jump_plan_settled_refusals_in_words_and_checks_before_sending(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.driver.get(self.server.base + "/")
        host.wait_visible(css_for("create-form"))
        self.assertFalse(host.visible(css_for("app-key")), "a first-time host is asked for an app key and secret")
        host.join("Desk", "Ann", "host")
        # Bo comes by the participant link the host copies: it names the session and carries its invite.
        link = host.find(css_for("invite-link")).get_attribute("value")
        self.assertIn("session=Desk", link)
        self.assertIn("invite=", link)
        bo.driver.get(link)
        bo.wait_text(css_for("join-heading"), "Join Desk")
        self.assertFalse(bo.visible(css_for("token")), "a participant link asks for a token")
        bo.join("Desk", "Bo", "participant")
        host.wait_visible(css_for("user-row", userName="Bo"))

        # An empty list of room names is answered, next to its button.
        host.click(css_for("plan-add"))
        host.wait_text(css_for("inline-error"), "Type at least one room name")
        host.type(css_for("plan-names"), "Red, Blue")
        host.click(css_for("plan-add"))
        host.wait_visible(css_for("plan-room", room="Blue"))
        host.click(css_for("commit"))
        host.wait_text(css_for("status"), "Rooms ready")
        # Once confirmed, the plan is not a second editable list of the same rooms.
        host.wait_gone(css_for("plan-editor"), "the plan editor to close once the plan is confirmed")
        self.assertFalse(host.visible(css_for("plan-names")))

        self.assertIn("primary", host.find(css_for("start")).get_attribute("class").split(), "Start is the next step once rooms are ready")
        # Start is in sight at 1440×900 without scrolling, and starting moves nothing on the page.
        host.scroll_top()
        start, rooms = host.box(css_for("start")), host.box(css_for("rooms-section"))
        self.assertLessEqual(start["bottom"], 900, f"Start is below the fold: {start}")
        host.driver.execute_script("arguments[0].click();", host.find(css_for("start")))
        host.wait_text(css_for("status"), "Rooms open")
        self.assertNotIn("primary", host.find(css_for("start")).get_attribute("class").split(),
                         "while the rooms are open, Start is not shown as the step to take")
        host.scroll_top()
        for testid, before in (("start", start), ("rooms-section", rooms)):
            after = host.box(css_for(testid))
            self.assertLess(abs(after["top"] - before["top"]), 2, f"{testid} jumped from {before['top']} to {after['top']} on start")

        # A refusal in plain words, next to the button.
        host.click(css_for("start"))
        # (Issue 24: it said "no rooms ready to start" while the rooms were open.)
        host.wait_text(css_for("inline-error"), "The rooms are open already")
        error = host.box(css_for("inline-error"))
        start = host.box(css_for("start"))
        self.assertLess(abs(error["top"] - start["bottom"]), 60, f"the error is far from Start: {start} {error}")

        # A message over the limit is refused before sending, not cut.
        host.set_value(css_for("chat-text"), "x" * 5000)
        host.click(css_for("chat-send"))
        host.wait_text(css_for("chat"), "too long: 5,000 characters, at most 4,000")
        self.assertNotIn("xxxx", host.text(css_for("chat-log")))

        # Everyone back during the stop's countdown ends it: the rooms may start again at once.
        host.type(css_for("stop-countdown"), "60")
        host.click(css_for("stop"))
        host.wait_text(css_for("status"), "Rooms closing")
        host.click(css_for("clear-all"))
        host.wait_text(css_for("status"), "Rooms closed")
        bo.wait_text(css_for("my-location"), "Main session")
        host.click(css_for("start"))
        host.wait_text(css_for("status"), "Rooms open")
        for page in (host, bo):
            self.assert_plain_words(page)

    def test_with_fifty_rooms_stop_and_extend_are_in_sight(self):
        host = self.page("host Ann")
        host.join("Fifty", "Ann", "host")
        self.open_quick_rooms(host)
        host.type(css_for("create-count"), "50")
        host.click(css_for("create-rooms"))
        host.wait_visible(room("Room 50"))
        host.scroll_top()
        rooms = host.box(css_for("rooms"))
        for testid in ("stop", "extend", "clear-all"):
            box = host.box(css_for(testid))
            self.assertLessEqual(box["bottom"], 900, f"{testid} is out of sight with 50 rooms: {box}")
            self.assertLess(box["bottom"], rooms["top"], f"{testid} is past the rooms")
        height = host.driver.execute_script("return document.documentElement.scrollHeight;")
        self.assertLess(height, 3000, f"the host page is {height} px tall with 50 rooms")
        host.screenshot("host-50-rooms-1440x900.png")
