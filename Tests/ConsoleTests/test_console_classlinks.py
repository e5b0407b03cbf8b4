"""A link names one class, not a session's name (issue 38): a class that ended says so on
every link's page and offers nothing that would start another, and a student who starts a
class under the teacher's name gets none of her class's people; a host link opened again
while its host is in asks to take the one host seat over, never joining a manager; a host
link the host replaced is refused at once."""

import unittest
import urllib.parse

from console_support import ConsoleTestCase, css_for


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
        host_link = self.host_link(ann)
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
        self.assertEqual(self.roles("Period 5"), [("Ann (laptop)", "host")])

    def test_a_replaced_host_link_is_refused_at_once(self):
        ann, eve = self.page("host Ann"), self.page("Eve who saw the link")
        ann.create("Period 6", "Ann")
        old = self.host_link(ann)
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


if __name__ == "__main__":
    unittest.main()
