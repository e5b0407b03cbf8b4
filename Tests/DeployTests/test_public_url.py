"""`caucus serve --public-url`: the one name students open, from which the announced media
address and the console's links follow."""

import json
import re
import unittest
import urllib.request

from tls_support import TLSFiles, run_to_end, tls_server
from caucus_server import CaucusServer


def development_status(server, context=None):
    with urllib.request.urlopen(f"{server.base}/console/dev", timeout=10, context=context) as response:
        return json.load(response)


class PublicURLTests(unittest.TestCase):
    def test_an_ip_literal_is_announced_for_media_and_named_to_the_console(self):
        # 127.0.0.2 is this machine too (all of 127/8 is loopback), so media can bind it.
        server = CaucusServer(arguments=["--public-url", "https://127.0.0.2:8443"])
        try:
            self.assertEqual(server.media_endpoint()[0], "127.0.0.2")
            self.assertEqual(development_status(server).get("publicURL"), "https://127.0.0.2:8443")
            self.assertTrue(any("Public URL: https://127.0.0.2:8443" in line for line in server.output), "".join(server.output))
        finally:
            server.stop()

    def test_a_name_is_resolved_for_media(self):
        server = CaucusServer(arguments=["--public-url", "https://localhost"])
        try:
            self.assertEqual(server.media_endpoint()[0], "127.0.0.1")
        finally:
            server.stop()

    def test_an_explicit_media_address_wins(self):
        server = CaucusServer(arguments=["--public-url", "https://127.0.0.2", "--media-address", "127.0.0.3"])
        try:
            self.assertEqual(server.media_endpoint()[0], "127.0.0.3")
        finally:
            server.stop()

    def test_a_name_that_does_not_resolve_ends_the_start_and_says_what_to_pass(self):
        status, output = run_to_end(["--public-url", "https://no-such-host.invalid"])
        self.assertNotEqual(status, 0, output)
        self.assertIn("no-such-host.invalid", output)
        self.assertIn("--media-address", output)
        self.assertNotIn("listening", output)

    def test_without_a_public_url_the_console_is_told_none(self):
        server = CaucusServer()
        try:
            self.assertNotIn("publicURL", development_status(server))
        finally:
            server.stop()

    def test_over_tls_the_public_url_is_announced_with_wss(self):
        files = TLSFiles()
        server = tls_server(files, "--public-url", "https://localhost:9443")
        try:
            line = next(line for line in server.output if "Public URL" in line)
            self.assertIn("WebSocket: wss://localhost:9443/ws", line)
            self.assertEqual(development_status(server, files.context()).get("publicURL"), "https://localhost:9443")
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
