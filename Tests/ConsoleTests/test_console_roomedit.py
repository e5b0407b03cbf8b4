"""Renaming rooms and taking people out of the plan from the console (issue 11's last two
features): the host renames a planned and a committed room, and a participant sees the new
name; the host takes a person out of the plan, who shows as not in a room.

Run after `swift build`: python3 -m unittest discover -s Tests/ConsoleTests -v -k RoomEdit
"""

from console_support import ConsoleTestCase, css_for


def in_room(name, testid):
    return f"{css_for('room-card', room=name)} {css_for(testid)}"


def in_plan(name, testid):
    return f"{css_for('plan-room', room=name)} {css_for(testid)}"


class RoomEditTests(ConsoleTestCase):

    def wait_status(self, page, status):
        page.wait(lambda: page.find(css_for("status")).get_attribute("data-status") == status, f"the status {status}")

    def plan(self, host, rooms, placed):
        host.type(css_for("plan-names"), ", ".join(rooms))
        host.click(css_for("plan-add"))
        for name, target in placed.items():
            host.choose(in_plan(target, "plan-assign-select"), name)
            host.click(in_plan(target, "plan-assign-button"))
            host.wait_text(in_plan(target, "plan-assigned"), name)

    def rename(self, host, where, testid, old, new):
        """Opens the rename form of room `old` (a plan row or a room card), types `new`, saves."""
        scope = css_for(where, room=old)
        host.click(f"{scope} {css_for(testid + '-rename')}")
        host.type(f"{scope} {css_for(testid + '-rename-input')}", new)
        host.click(f"{scope} {css_for(testid + '-rename-save')}")

    def test_the_host_renames_a_planned_and_a_committed_room_and_a_participant_sees_the_new_name(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Renames", "Ann", "host")
        bo.join("Renames", "Bo", "participant")
        self.plan(host, ["Red", "Blue"], {"Bo": "Red"})

        # A planned room: renamed in place, and Bo is still planned in it.
        self.rename(host, "plan-room", "plan", "Red", "Crimson")
        host.wait_text(in_plan("Crimson", "plan-assigned"), "Bo")
        self.assertFalse(host.driver.find_elements("css selector", css_for("plan-room", room="Red")))
        # A name another planned room has is refused, in words, next to the form.
        self.rename(host, "plan-room", "plan", "Blue", "crimson")
        error = host.wait_text(f"{css_for('plan-room', room='Blue')} {css_for('inline-error')}", "already a room with that name")
        self.assertEqual(host.find(f"{css_for('plan-room', room='Blue')} {css_for('inline-error')}").get_attribute("data-code"), "4003", error)
        host.click(f"{css_for('plan-room', room='Blue')} {css_for('plan-rename-cancel')}")

        # Confirmed: the room card is renamed, and the participant sees the new name.
        host.click(css_for("commit"))
        self.wait_status(host, "committed")
        bo.wait_visible(css_for("room-choice", room="Crimson"))
        self.rename(host, "room-card", "room", "Crimson", "Green")
        bo.wait_visible(css_for("room-choice", room="Green"))
        host.wait_text(in_room("Green", "room-assigned"), "Bo")

        # Open: Bo is moved into it under its new name, and a rename while he is there reaches him.
        host.click(css_for("start"))
        self.wait_status(host, "started")
        bo.wait_text(css_for("my-location"), "Green")
        bo.send_chat("Hello Green")
        bo.wait_text(css_for("chat-log"), "Bo: Hello Green")
        self.rename(host, "room-card", "room", "Green", "Teal")
        bo.wait_text(css_for("my-location"), "Teal")
        bo.wait_text(css_for("chat-title"), "Chat · Teal")
        # Its chat is the same room's: what was said before the rename is still there.
        self.assertIn("Bo: Hello Green", bo.text(css_for("chat-log")))
        host.wait_text(in_room("Teal", "room-occupants"), "Bo")
        bo.wait_text(css_for("notices"), "Green is now called Teal.")
        self.assert_models_agree("Renames")

    def test_the_host_takes_a_person_out_of_the_plan_and_they_are_not_in_a_room(self):
        host, bo, col = self.page("host Ann"), self.page("participant Bo"), self.page("participant Col")
        host.join("Unplan", "Ann", "host")
        bo.join("Unplan", "Bo", "participant")
        col.join("Unplan", "Col", "participant")
        self.plan(host, ["Red"], {"Bo": "Red", "Col": "Red"})
        host.wait_text(css_for("unplaced"), "nobody")

        # The × on Bo's chip takes him out of the plan: he is not in a room yet again.
        host.click(f"{in_plan('Red', 'plan-assigned')} {css_for('plan-person', userName='Bo')} {css_for('plan-unassign')}")
        host.wait(lambda: "Bo" not in host.text(in_plan("Red", "plan-assigned")), "Bo to leave the plan")
        host.wait_text(css_for("unplaced"), "Bo")
        self.assertIn("Col", host.text(in_plan("Red", "plan-assigned")))

        # Confirmed and started: Col goes to Red, Bo stays in the main session.
        host.click(css_for("commit"))
        self.wait_status(host, "committed")
        host.wait_text(in_room("Red", "room-assigned"), "Col")
        self.assertNotIn("Bo", host.text(in_room("Red", "room-assigned")))
        host.click(css_for("start"))
        self.wait_status(host, "started")
        col.wait_text(css_for("my-location"), "Red")
        bo.wait_text(css_for("my-location"), "Main session")
        self.assertEqual([user.get("location") for user in self.server_view("Unplan")["users"] if user["name"] == "Bo"], [None])
        self.assert_models_agree("Unplan")
