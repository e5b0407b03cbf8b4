"""A link names one class, not a session's name (issue 38): a class that ended says so on
every link's page and offers nothing that would start another, and a student who starts a
class under the teacher's name gets none of her class's people; a host link opened again
while its host is in asks to take the one host seat over, never joining a manager; a host
link the host replaced is refused at once."""

import pathlib
import subprocess
import unittest
import urllib.parse

from console_support import CaucusServer, ConsoleTestCase, Page, css_for
from caucus_server import CAUCUS, WAIT_SECONDS


def invite_of(link):
    return urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["invite"][0]


class ClassLinkTests(ConsoleTestCase):
    def host_link(self, page):
        page.click(css_for("host-link-show"))
        page.wait_visible(css_for("host-link"))
        return page.find(css_for("host-link")).get_attribute("value")

    def roles(self, session):
        users = self.server_view(session)["users"]
        return sorted((user["name"], user["role"]) for user in users)

    def test_an_ended_class_says_so_and_a_class_restarted_under_its_name_takes_none_of_its_links(self):
        ann, bo, mal = self.page("host Ann"), self.page("participant Bo"), self.page("student Mal")
        ann.create("Period 4", "Ann")
        bo.join("Period 4", "Bo", "participant")
        participant_link = ann.find(css_for("invite-link")).get_attribute("value")
        # The teacher ends the class for everyone: Bo's page says the class ended, with no way back in.
        ann.click(css_for("leave"))
        ann.click(css_for("leave-end-all"))
        bo.wait_visible(css_for("class-ended"))
        self.assertEqual(bo.driver.find_elements("css selector", css_for("start-again")), [])
        # A student starts a class under the same name.
        mal.create("Period 4", "Mal")
        # Bo opens his link again: the class has ended; he joins nothing.
        bo.driver.get(participant_link)
        bo.type(css_for("user-name"), "Bo")
        bo.click(css_for("join"))
        bo.wait_text(css_for("join-heading"), "Period 4 has ended")
        bo.wait_text(css_for("join-note"), "This class has ended")
        self.assertEqual(bo.find(css_for("join-note")).get_attribute("data-code"), "1023")
        self.assertFalse(bo.visible(css_for("join")))
        self.assertEqual(self.roles("Period 4"), [("Mal", "host")])

    def test_a_host_link_opened_while_its_host_is_in_asks_to_take_the_seat_over(self):
        ann, laptop = self.page("host Ann"), self.page("Ann's laptop")
        ann.create("Period 5", "Ann")
        # The host link, as the address bar shows it.
        host_link = ann.driver.current_url
        laptop.driver.get(host_link)
        laptop.type(css_for("user-name"), "Ann (laptop)")
        laptop.click(css_for("join"))
        laptop.wait_visible(css_for("take-over-question"))
        self.assertIn("Take the host seat over?", laptop.text(css_for("take-over-question")))
        # Nothing joined while the question waits: no manager, one host.
        self.assertEqual(self.roles("Period 5"), [("Ann", "host")])
        laptop.click(css_for("take-over-cancel"))
        laptop.wait_gone(css_for("take-over-question"))
        self.assertEqual(self.roles("Period 5"), [("Ann", "host")])
        laptop.click(css_for("join"))
        laptop.click(css_for("take-over"))
        laptop.wait_joined("Ann (laptop)", "host")
        ann.wait_visible(css_for("closed"))
        # The old page is told its seat was taken over, not that it was removed.
        self.assertIn("Your seat was taken over in another browser.", ann.text(css_for("closed")))
        self.assertNotIn("removed", ann.text(css_for("closed")))
        self.assertEqual(self.roles("Period 5"), [("Ann (laptop)", "host")])

    def test_a_replaced_host_link_is_refused_at_once(self):
        ann, eve = self.page("host Ann"), self.page("Eve who saw the link")
        ann.create("Period 6", "Ann")
        old = self.host_link(ann)
        self.assertEqual(invite_of(old), invite_of(ann.driver.current_url), "the page is the host link")
        ann.click(css_for("host-link-replace"))
        ann.wait(lambda: ann.find(css_for("host-link")).get_attribute("value") != old, "a new host link")
        new = ann.find(css_for("host-link")).get_attribute("value")
        self.assertNotEqual(invite_of(new), invite_of(old))
        self.assertEqual(invite_of(ann.driver.current_url), invite_of(new), "the page becomes the new host link")
        eve.driver.get(old)
        eve.type(css_for("user-name"), "Eve")
        eve.click(css_for("join"))
        eve.wait(lambda: "replaced" in eve.body_text(), "the refusal")
        self.assertIn('data-code="1024"', eve.driver.page_source)
        self.assertEqual(self.roles("Period 6"), [("Ann", "host")])
        # The host's own page still works, and a reload resumes the same seat under the new link.
        ann.reload()
        ann.wait_joined("Ann", "host")
        self.assertEqual(self.roles("Period 6"), [("Ann", "host")])


class ConfiguredAppClassTests(unittest.TestCase):
    """With configured apps and no app server, a class opens from the link `caucus link`
    prints, and the console works as on the development app, without its banner."""

    APP = {"key": "school", "secret": "school-secret-for-the-class-link-test"}

    def setUp(self):
        self.server = CaucusServer(apps=[self.APP])
        self.addCleanup(self.server.stop)

    def test_a_class_opens_from_the_printed_link(self):
        config = str(pathlib.Path(self.server.data) / "apps.json")
        printed = subprocess.run(
            [str(CAUCUS), "link", "--config", config, "--app", "school", "--session", "Period 3", "--url", self.server.base],
            capture_output=True, text=True, check=True, timeout=WAIT_SECONDS)
        host_link = printed.stdout.strip()
        self.assertTrue(host_link.startswith(self.server.base + "/console/?"), printed)
        ann, bo = Page("host Ann", self.server.base), Page("participant Bo", self.server.base)
        self.addCleanup(ann.quit)
        self.addCleanup(bo.quit)
        ann.driver.get(host_link)
        ann.wait(lambda: ann.find("body").get_attribute("data-development") == "off", "the development check")
        self.assertFalse(ann.visible(css_for("dev-banner")), "the development banner shows with configured apps")
        ann.wait_text(css_for("join-heading"), "Join Period 3")
        ann.type(css_for("user-name"), "Ann")
        ann.click(css_for("join"))
        ann.wait_joined("Ann", "host")
        # The host page shows the class's participant link, and it joins Bo as a participant.
        ann.wait(lambda: "invite=" in (ann.find(css_for("invite-link")).get_attribute("value") or ""), "the participant link")
        bo.driver.get(ann.find(css_for("invite-link")).get_attribute("value"))
        bo.type(css_for("user-name"), "Bo")
        bo.click(css_for("join"))
        bo.wait_joined("Bo", "participant")
        self.assertFalse(bo.visible(css_for("dev-banner")))
        ann.wait(lambda: "Bo" in (ann.text(css_for("host-view")) or ""), "Bo in the host's view")
        ann.assert_no_error()


if __name__ == "__main__":
    unittest.main()
