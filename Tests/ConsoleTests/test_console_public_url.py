"""The console's invite links on a server with a public URL (`--public-url`) name that URL,
whatever address the host opened the console at; without one they name the host's own
address, and the page says when that is this computer's loopback, which no one else can open."""

import unittest
import urllib.parse

from console_support import CaucusServer, ConsoleTestCase, css_for

PUBLIC = "https://class.example.org"


class PublicURLLinkTests(ConsoleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server.stop()
        # The public name resolves nowhere here: media keeps its own address.
        cls.server = CaucusServer(arguments=["--public-url", PUBLIC, "--media-address", "127.0.0.1"])

    def test_the_links_handed_out_name_the_public_url(self):
        host = self.page("host Ann")
        host.join("Public", "Ann", "host")
        link = host.find(css_for("invite-link")).get_attribute("value")
        self.assertTrue(link.startswith(f"{PUBLIC}/console/?"), link)
        self.assertEqual(urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["session"], ["Public"])
        self.assertTrue(host.find(css_for("host-link")).get_attribute("value").startswith(f"{PUBLIC}/console/?"))
        self.assertFalse(host.visible(css_for("loopback-link-note")))
        # The host's own page stays where it is (a page can only rename itself within its origin).
        self.assertTrue(host.driver.current_url.startswith(f"{self.server.base}/console/?"), host.driver.current_url)
        self.assertIn("invite=", host.driver.current_url)


class LoopbackLinkTests(ConsoleTestCase):
    def test_without_a_public_url_the_links_name_the_page_and_a_loopback_one_is_flagged(self):
        host = self.page("host Ann")
        host.join("Local", "Ann", "host")
        link = host.find(css_for("invite-link")).get_attribute("value")
        self.assertTrue(link.startswith(f"{self.server.base}/console/?"), link)
        self.assertTrue(host.visible(css_for("loopback-link-note")))
        self.assertIn("only this computer", host.text(css_for("loopback-link-note")))


if __name__ == "__main__":
    unittest.main()
