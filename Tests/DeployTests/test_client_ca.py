"""`caucus client --ca FILE`: the terminal client joins a wss:// server whose certificate a
private CA signed, and without the CA is refused with a TLS reason, not a hang."""

import subprocess
import unittest

from tls_support import CAUCUS, WAIT_SECONDS, TLSServerTestCase


class ClientCATests(TLSServerTestCase):
    def client(self, *extra):
        """`caucus client` joining over wss with nothing typed: it joins, then leaves at the end of its input."""
        command = [str(CAUCUS), "client", "--url", f"wss://localhost:{self.server.port}/ws", "--session", "Terminal", "--name", "Ada",
                   "--role", "host", "--data", self.server.data, *extra]
        done = subprocess.run(command, input="", capture_output=True, text=True, timeout=WAIT_SECONDS)
        return done.returncode, done.stdout + done.stderr

    def test_the_private_ca_lets_the_client_join(self):
        status, output = self.client("--ca", str(self.files.ca.path))
        self.assertEqual(status, 0, output)
        self.assertIn("joined Terminal as Ada", output)

    def test_without_the_ca_the_join_fails_with_a_tls_reason(self):
        status, output = self.client()
        self.assertNotEqual(status, 0, output)
        self.assertIn("Could not connect securely: the server's certificate is not trusted", output)

    def test_a_ca_file_that_is_not_a_certificate_is_refused(self):
        status, output = self.client("--ca", str(self.files.key))
        self.assertNotEqual(status, 0, output)
        self.assertIn("not a PEM certificate", output)


if __name__ == "__main__":
    unittest.main()
