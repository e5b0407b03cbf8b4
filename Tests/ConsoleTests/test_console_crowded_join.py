"""A console page whose first join is closed 4009 (its address already has as many connections
waiting to join as the server allows, as when a class behind one NAT opens the link together)
tries again after a jittered delay, and joins once there is room."""

import re
import socket
import time
import unittest
import urllib.request

from console_support import WAIT_SECONDS, CaucusServer, ConsoleTestCase, css_for


def refused_upgrades(server):
    """The server's count of upgrades closed 4009."""
    with urllib.request.urlopen(f"{server.base}/metrics", timeout=10) as response:
        text = response.read().decode()
    match = re.search(r"^caucus_unjoined_refused_total (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


class CrowdedJoinTests(ConsoleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server.stop()
        cls.server = CaucusServer(arguments=["--max-waiting-per-address", "1"])

    def test_a_first_join_closed_4009_is_tried_again_until_it_joins(self):
        host = self.page("host Ann")
        # A connection that says nothing holds this address's one place, from its accept.
        holder = socket.create_connection(("127.0.0.1", self.server.port))
        try:
            before = refused_upgrades(self.server)
            host.driver.get(self.server.base + "/")
            host.wait_visible(css_for("create-form"))
            host.type(css_for("create-session-name"), "Crowded")
            host.type(css_for("create-user-name"), "Ann")
            host.click(css_for("create-session"))
            deadline = time.monotonic() + WAIT_SECONDS
            while refused_upgrades(self.server) < before + 2:
                self.assertLess(time.monotonic(), deadline, "the page's join was not closed 4009 twice")
                time.sleep(0.05)
            self.assertFalse(host.visible(css_for("host-view")))
            host.assert_no_error()
        finally:
            holder.close()
        host.wait_joined("Ann", "host")
        host.assert_no_error()

    def test_the_retry_delay_doubles_with_jitter(self):
        page = self.page("anyone")
        page.driver.get(self.server.base + "/")
        page.wait_visible(css_for("create-form"))
        delays = page.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            import("/console/protocol.js").then(({ crowdedRetryDelay }) => done({
              low: [0, 1, 2, 3, 4, 8].map((retries) => crowdedRetryDelay(retries, 0)),
              high: [0, 1, 2, 3, 4, 8].map((retries) => crowdedRetryDelay(retries, 0.999999)),
              drawn: Array.from({ length: 20 }, () => crowdedRetryDelay(0)),
            }));
            """)
        self.assertEqual(delays["low"], [100, 200, 400, 800, 1500, 1500])
        for high, low in zip(delays["high"], delays["low"]):
            self.assertAlmostEqual(high, low * 3, delta=0.01)
        self.assertTrue(all(100 <= delay < 300 for delay in delays["drawn"]), delays["drawn"])
        self.assertGreater(len(set(delays["drawn"])), 15, "twenty clients closed together come back at different moments")


if __name__ == "__main__":
    unittest.main()
