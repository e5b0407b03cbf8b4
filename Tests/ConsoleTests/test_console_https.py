"""The console in Chromium over HTTPS and WSS from `caucus serve --tls-cert`: a secure page
(camera and microphone allowed beyond localhost), a session started and joined through wss,
HSTS remembered. Chromium trusts the test certificate by its public key, as a school's
managed browsers trust its CA."""

import base64
import hashlib
import pathlib
import sys
import unittest

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from console_support import CaucusServer, Page, css_for

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "DeployTests"))
from tls_support import TLSFiles  # noqa: E402


def spki_hash(certificate_path):
    """Chromium's --ignore-certificate-errors-spki-list value: the SHA-256 of the server
    certificate's public key, base64."""
    certificate = x509.load_pem_x509_certificate(pathlib.Path(certificate_path).read_bytes())
    der = certificate.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


class HTTPSConsoleTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = TLSFiles()
        cls.server = CaucusServer(arguments=cls.files.arguments())
        cls.host = Page("host Ann", cls.server.base, [f"--ignore-certificate-errors-spki-list={spki_hash(cls.files.certificate)}"])

    @classmethod
    def tearDownClass(cls):
        cls.host.quit()
        cls.server.stop()

    def test_a_session_runs_over_https_and_wss(self):
        self.assertTrue(self.server.base.startswith("https://127.0.0.1:"))
        self.host.join("Secure", "Ann", "host")
        driver = self.host.driver
        self.assertTrue(driver.execute_script("return window.isSecureContext"))
        self.assertTrue(driver.execute_script("return !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia)"))
        link = self.host.find(css_for("invite-link")).get_attribute("value")
        self.assertTrue(link.startswith(f"{self.server.base}/console/?"), link)
        # The page joined, which from an https page only a wss socket can (ws:// is mixed
        # content, blocked); and nothing it loaded came over plain http.
        entries = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        self.assertFalse([name for name in entries if name.startswith("http://")], entries)


if __name__ == "__main__":
    unittest.main()
