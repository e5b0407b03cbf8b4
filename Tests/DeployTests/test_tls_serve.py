"""`caucus serve --tls-cert --tls-key`: HTTPS and WSS on one port from a real certificate,
reloaded without dropping anyone, and every bad input refused with its reason."""

import asyncio
import datetime
import os
import re
import signal
import socket
import ssl
import time
import unittest
import warnings

from tls_support import WAIT_SECONDS, Seat, TLSFiles, TLSServerTestCase, curl, header, served_serial, tls_server, wait_for_serial, run_to_end
from caucus_server import CaucusServer


class HTTPSAndWSSTests(TLSServerTestCase):
    def test_the_startup_line_says_https_and_wss(self):
        line = next(line for line in self.server.output if "listening on" in line)
        self.assertRegex(line, r"listening on https://127\.0\.0\.1:\d+ \(WebSocket: wss://127\.0\.0\.1:\d+/ws\)")

    def test_the_console_comes_over_https_with_hsts(self):
        status, output = curl("--cacert", str(self.files.ca.path), "-D", "-", "-o", "/dev/null", f"{self.server.base}/console/")
        self.assertEqual(status, 0, output)
        self.assertRegex(output, r"^HTTP/1\.1 200")
        self.assertEqual(header(output, "Strict-Transport-Security"), "max-age=31536000")

    def test_every_https_answer_carries_hsts_errors_included(self):
        for path in ["/healthz", "/no-such-page", "/v1/sessions"]:
            status, output = curl("--cacert", str(self.files.ca.path), "-D", "-", "-o", "/dev/null", f"{self.server.base}{path}")
            self.assertEqual(status, 0, output)
            self.assertEqual(header(output, "Strict-Transport-Security"), "max-age=31536000", path)
        # What the server answers outside its routes: a method it does not know, a refused upgrade.
        refused_upgrade = ["-H", "Upgrade: websocket", "-H", "Connection: Upgrade", "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: x"]
        for extra, status_line in [(["-X", "BREW"], "HTTP/1.1 501"), (refused_upgrade, "HTTP/1.1 400")]:
            status, output = curl("--cacert", str(self.files.ca.path), "-D", "-", "-o", "/dev/null", *extra, f"{self.server.base}/other")
            self.assertTrue(output.startswith(status_line), output)
            self.assertEqual(header(output, "Strict-Transport-Security"), "max-age=31536000", output)

    def test_a_client_that_does_not_trust_the_ca_is_refused_the_handshake(self):
        status, output = curl("-o", "/dev/null", f"{self.server.base}/healthz")
        self.assertEqual(status, 60, f"curl must fail to verify the certificate: {output}")

    def test_tls_1_1_is_refused(self):
        context = self.files.context()
        with warnings.catch_warnings():
            # Deprecated, which is the point: a client that still offers only these.
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = ssl.TLSVersion.TLSv1
            context.maximum_version = ssl.TLSVersion.TLSv1_1
        # OpenSSL's default security level refuses TLS 1.1 itself; level 0 lets it ask.
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_SECONDS) as raw:
            with self.assertRaises(ssl.SSLError):
                context.wrap_socket(raw, server_hostname="127.0.0.1")

    def test_a_user_joins_over_wss_and_chats(self):
        async def run():
            token = self.server.token("Secure", "host", "ada")
            seat = await Seat.join(f"wss://127.0.0.1:{self.server.port}/ws", token, session="Secure", context=self.files.context())
            self.assertIn("secret", seat.reply)
            # The upgrade's answer is an HTTPS response too.
            self.assertEqual(seat.websocket.response.headers.get("Strict-Transport-Security"), "max-age=31536000")
            await seat.request({"op": "chat", "text": "over wss"})
            await seat.close()

        asyncio.run(run())


class ReloadTests(unittest.TestCase):
    def setUp(self):
        self.files = TLSFiles()
        self.server = tls_server(self.files)

    def tearDown(self):
        self.server.stop()

    async def joined(self, name):
        token = self.server.token("Reload", "participant", name.lower())
        return await Seat.join(f"wss://127.0.0.1:{self.server.port}/ws", token, session="Reload", name=name, context=self.files.context())

    def test_sighup_serves_the_new_certificate_to_new_connections_and_keeps_open_ones(self):
        async def run():
            self.assertEqual(served_serial(self.server.port, self.files), 1)
            seat = await self.joined("Ada")
            self.files.issue(serial=2, common_name="renewed")
            self.server.process.send_signal(signal.SIGHUP)
            await asyncio.to_thread(wait_for_serial, self.server.port, self.files, 2)
            # The session opened under the old certificate goes on.
            await seat.request({"op": "chat", "text": "after the reload"})
            newcomer = await self.joined("Ben")
            await newcomer.request({"op": "chat", "text": "on the new certificate"})
            await seat.request({"op": "ping"})
            await seat.close()
            await newcomer.close()

        asyncio.run(run())
        self.assertIsNone(self.server.process.poll(), "SIGHUP must not end the server")

    def test_a_changed_file_is_served_without_a_signal(self):
        async def run():
            seat = await self.joined("Ada")
            self.files.issue(serial=3)
            await asyncio.to_thread(wait_for_serial, self.server.port, self.files, 3)
            await seat.request({"op": "chat", "text": "still here"})
            await seat.close()

        asyncio.run(run())

    def test_a_bad_new_certificate_keeps_the_old_one_and_says_why(self):
        self.files.certificate.write_text("this is not a certificate\n")
        self.server.process.send_signal(signal.SIGHUP)
        self.assertIn("not a PEM certificate", self.wait_for_output("not reloaded"))
        self.assertEqual(served_serial(self.server.port, self.files), 1)
        # A key that is not the certificate's (a renewal caught halfway) is refused the same way.
        _, other_key = self.files.ca.issue("other", 9)
        self.files.issue(serial=4)
        self.files.key.write_bytes(other_key.read_bytes())
        self.assertIn("does not match the certificate", self.wait_for_output("does not match"))
        self.assertEqual(served_serial(self.server.port, self.files), 1)
        # Once the pair is whole again, the check serves it.
        self.files.issue(serial=5)
        wait_for_serial(self.server.port, self.files, 5)

    def wait_for_output(self, text):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            for line in list(self.server.output):
                if text in line:
                    return line
            time.sleep(0.1)
        self.fail(f"no {text!r} in:\n" + "".join(self.server.output))


class StrangersTests(TLSServerTestCase):
    """What arrives on the TLS port that is not TLS closes that one connection."""

    server_arguments = ("--join-deadline", "2")

    def closed_within(self, raw, seconds):
        """Whether the server closed `raw` within `seconds` (reading whatever it sent first)."""
        raw.settimeout(seconds)
        try:
            while raw.recv(4096):
                pass
            return True
        except (socket.timeout, TimeoutError):
            return False
        except ConnectionResetError:
            return True

    def assert_still_serving(self):
        status, output = curl("--cacert", str(self.files.ca.path), "-o", "/dev/null", "-w", "%{http_code}", f"{self.server.base}/healthz")
        self.assertEqual((status, output), (0, "200"))

    def test_plain_http_and_garbage_close_only_their_connection(self):
        async def run():
            token = self.server.token("Strangers", "host", "ada")
            seat = await Seat.join(f"wss://127.0.0.1:{self.server.port}/ws", token, session="Strangers", context=self.files.context())
            for stranger in [b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", os.urandom(600), b"\x16\x03\x01\x00\x05hello"]:
                with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_SECONDS) as raw:
                    raw.sendall(stranger)
                    self.assertTrue(await asyncio.to_thread(self.closed_within, raw, WAIT_SECONDS), stranger[:20])
                await seat.request({"op": "chat", "text": "undisturbed"})
                self.assert_still_serving()
            await seat.close()

        asyncio.run(run())
        self.assertIsNone(self.server.process.poll())

    def test_a_handshake_that_never_comes_is_closed_at_the_deadline(self):
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_SECONDS) as silent:
            # Not closed at once: a slow client has the deadline (2 s here) to begin.
            self.assertFalse(self.closed_within(silent, 0.5))
            self.assertTrue(self.closed_within(silent, WAIT_SECONDS))
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_SECONDS) as dribbling:
            # The first bytes of a ClientHello, and never the rest.
            dribbling.sendall(b"\x16\x03\x01\x02\x00\x01")
            self.assertTrue(self.closed_within(dribbling, WAIT_SECONDS))
        self.assert_still_serving()

    def test_a_request_that_stops_after_the_handshake_is_closed_at_the_deadline(self):
        for what, sent in [("nothing", b""), ("half a request head", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
                           ("a head and part of its body",
                            b"POST /v1/sessions/x/operations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"op\":")]:
            with socket.create_connection(("127.0.0.1", self.server.port), timeout=WAIT_SECONDS) as raw:
                with self.files.context().wrap_socket(raw, server_hostname="127.0.0.1") as secure:
                    secure.sendall(sent)
                    # The deadline (2 s here) counts from the accept: not closed at once, closed then.
                    self.assertFalse(self.closed_within(secure, 0.5), what)
                    self.assertTrue(self.closed_within(secure, WAIT_SECONDS), what)
        self.assert_still_serving()


class BadCertificateTests(unittest.TestCase):
    """Each unusable certificate or key ends `serve` at once, naming the file and the reason."""

    def setUp(self):
        self.files = TLSFiles()

    def assert_refused(self, certificate, key, *reasons, extra=()):
        started = time.monotonic()
        status, output = run_to_end(["--tls-cert", str(certificate), "--tls-key", str(key), *extra])
        self.assertNotEqual(status, 0, output)
        self.assertLess(time.monotonic() - started, WAIT_SECONDS / 2, output)
        self.assertNotIn("listening", output)
        error = next((line for line in output.splitlines() if line.startswith("Error:")), "")
        for reason in reasons:
            self.assertIn(reason, error, output)
        return error

    def test_a_missing_file(self):
        missing = self.files.folder / "missing.pem"
        self.assert_refused(missing, self.files.key, str(missing), "No such file")
        self.assert_refused(self.files.certificate, missing, str(missing), "No such file")

    def test_an_unreadable_file(self):
        # A folder where the file should be (root reads any file, whatever its mode).
        folder = self.files.folder / "a-folder.pem"
        folder.mkdir()
        self.assert_refused(folder, self.files.key, str(folder), "not a regular file")

    def test_a_file_that_is_not_pem(self):
        der = self.files.folder / "cert.der"
        der.write_bytes(b"\x30\x82\x01\x0a" + os.urandom(100))
        self.assert_refused(der, self.files.key, str(der), "not a PEM certificate")
        self.assert_refused(self.files.certificate, self.files.certificate, str(self.files.certificate), "not a PEM private key")

    def test_a_key_that_is_not_the_certificates(self):
        _, other_key = self.files.ca.issue("other", 7)
        self.assert_refused(self.files.certificate, other_key, str(other_key), "does not match the certificate")

    def test_an_expired_certificate(self):
        expired, key = self.files.ca.issue(
            "expired", 8, not_before=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=30),
            valid_for=datetime.timedelta(days=10))
        self.assert_refused(expired, key, str(expired), "expired on")

    def test_a_certificate_without_its_key_or_a_key_without_its_certificate(self):
        status, output = run_to_end(["--tls-cert", str(self.files.certificate)])
        self.assertNotEqual(status, 0)
        self.assertIn("--tls-cert needs --tls-key", output)
        status, output = run_to_end(["--tls-key", str(self.files.key)])
        self.assertNotEqual(status, 0)
        self.assertIn("--tls-key needs --tls-cert", output)

    def test_the_environment_names_them_too(self):
        missing = self.files.folder / "from-the-environment.pem"
        os.environ["CAUCUS_TLS_CERT"] = str(missing)
        os.environ["CAUCUS_TLS_KEY"] = str(self.files.key)
        try:
            status, output = run_to_end([])
        finally:
            del os.environ["CAUCUS_TLS_CERT"], os.environ["CAUCUS_TLS_KEY"]
        self.assertNotEqual(status, 0, output)
        self.assertIn(str(missing), output)

    def test_a_certificate_about_to_expire_is_served_with_a_warning(self):
        soon, key = self.files.ca.issue("soon", 10, valid_for=datetime.timedelta(days=5))
        server = CaucusServer(arguments=["--tls-cert", str(soon), "--tls-key", str(key)])
        try:
            warning = next((line for line in server.output if "expires on" in line), None)
            self.assertIsNotNone(warning, "".join(server.output))
            self.assertIn(str(soon), warning)
            self.assertRegex(warning, r"in [45] day")
            self.assertEqual(served_serial(server.port, self.files), 10)
        finally:
            server.stop()


class PlainHTTPTests(unittest.TestCase):
    def test_without_certificate_nothing_changes(self):
        server = CaucusServer()
        try:
            self.assertTrue(server.base.startswith("http://"))
            status, output = curl("-D", "-", "-o", "/dev/null", f"{server.base}/console/")
            self.assertEqual(status, 0, output)
            self.assertIsNone(header(output, "Strict-Transport-Security"))
        finally:
            server.stop()


class RedirectTests(unittest.TestCase):
    def setUp(self):
        self.files = TLSFiles()

    def redirect_port(self, server):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            for line in list(server.output):
                match = re.search(r"HTTP redirect: http://127\.0\.0\.1:(\d+)", line)
                if match:
                    return int(match.group(1))
            time.sleep(0.05)
        self.fail("no redirect line:\n" + "".join(server.output))

    def test_every_plain_request_is_sent_to_https_with_308(self):
        server = tls_server(self.files, "--http-redirect-port", "0")
        try:
            port = self.redirect_port(server)
            for path in ["/console/?session=Demo&invite=abc", "/", "/healthz"]:
                status, output = curl("-D", "-", "-o", "/dev/null", f"http://127.0.0.1:{port}{path}")
                self.assertEqual(status, 0, output)
                self.assertRegex(output, r"^HTTP/1\.1 308")
                self.assertEqual(header(output, "Location"), f"https://127.0.0.1:{server.port}{path}")
                self.assertIsNone(header(output, "Strict-Transport-Security"))
            # The Location is followed to the console, over HTTPS.
            status, output = curl("-L", "--cacert", str(self.files.ca.path), "-o", "/dev/null", "-w", "%{http_code} %{url_effective}", f"http://127.0.0.1:{port}/console/")
            self.assertEqual((status, output), (0, f"200 https://127.0.0.1:{server.port}/console/"))
        finally:
            server.stop()

    def test_the_public_url_is_where_the_redirect_goes(self):
        server = tls_server(self.files, "--http-redirect-port", "0", "--public-url", "https://class.example.org", "--media-address", "127.0.0.1")
        try:
            port = self.redirect_port(server)
            status, output = curl("-D", "-", "-o", "/dev/null", "-H", "Host: evil.example", f"http://127.0.0.1:{port}/console/?a=1")
            self.assertEqual(status, 0, output)
            self.assertEqual(header(output, "Location"), "https://class.example.org/console/?a=1")
        finally:
            server.stop()

    def test_a_redirect_needs_tls(self):
        status, output = run_to_end(["--http-redirect-port", "0"])
        self.assertNotEqual(status, 0)
        self.assertIn("--http-redirect-port redirects to HTTPS", output)


if __name__ == "__main__":
    unittest.main()
