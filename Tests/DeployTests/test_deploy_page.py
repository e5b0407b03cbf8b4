"""docs/deploy.md says what runs: the systemd unit it quotes is the one shipped in deploy/, the
coturn configuration it quotes is the one the network lab runs, and its own-CA commands make a
certificate pair that `caucus serve` serves and a client trusting that CA accepts by name."""

import pathlib
import shutil
import socket
import ssl
import subprocess
import tempfile
import unittest

from tls_support import WAIT_SECONDS
from caucus_server import CaucusServer  # tls_support puts Tests/PythonSupport on the path

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "deploy.md"
LAB_TURN_CONFIG = ROOT / "Tests" / "NetworkLab" / "turnserver.conf"


def section(heading):
    """The page's text under `## heading`, up to the next `## `."""
    text = PAGE.read_text()
    marker = f"\n## {heading}\n"
    if marker not in text:
        raise AssertionError(f"docs/deploy.md has no section \"## {heading}\"")
    return text.split(marker, 1)[1].split("\n## ", 1)[0]


def code_block(text, language, after=""):
    """The first ```language block in `text` after the words `after`, without its fences."""
    start = text.index(after) if after else 0
    fence = f"```{language}\n"
    if fence not in text[start:]:
        raise AssertionError(f"no {fence.strip()} block after {after!r}")
    return text[start:].split(fence, 1)[1].split("\n```", 1)[0]


class QuotedFilesTests(unittest.TestCase):
    def test_the_unit_quoted_is_the_unit_shipped(self):
        quoted = code_block(section("Running under systemd"), "ini")
        self.assertEqual(quoted, (ROOT / "deploy" / "caucus.service").read_text().rstrip("\n"))

    def test_the_coturn_configuration_quoted_is_the_one_the_lab_runs(self):
        if not LAB_TURN_CONFIG.exists():
            self.skipTest(f"{LAB_TURN_CONFIG.relative_to(ROOT)} (the network lab) is not in this tree: nothing to compare with")
        quoted = code_block(section("TURN (coturn)"), "conf").splitlines()
        running = [line for line in LAB_TURN_CONFIG.read_text().splitlines() if line and not line.startswith("#")]
        self.assertEqual(quoted, running)


class OwnCATests(unittest.TestCase):
    def test_the_pages_openssl_commands_make_a_pair_the_server_serves_by_name(self):
        if shutil.which("openssl") is None:
            self.skipTest("the openssl command is missing (scripts/test installs it)")
        commands = code_block(section("Certificates: ACME or your own CA"), "sh", after="**Your own CA**")
        folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-own-ca-"))
        self.addCleanup(shutil.rmtree, folder, True)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=folder, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue((folder / "privkey.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----"), "an unencrypted PKCS #8 key")

        server = CaucusServer(arguments=["--tls-cert", str(folder / "fullchain.pem"), "--tls-key", str(folder / "privkey.pem")])
        self.addCleanup(server.stop)
        trusting = ssl.create_default_context(cafile=str(folder / "school-ca.pem"))
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_SECONDS) as raw:
            with trusting.wrap_socket(raw, server_hostname="class.example.org") as tls:
                names = [value for kind, value in tls.getpeercert()["subjectAltName"] if kind == "DNS"]
        self.assertEqual(names, ["class.example.org"])
        with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_SECONDS) as raw:
            with self.assertRaises(ssl.SSLCertVerificationError, msg="another name is refused: the certificate names the server"):
                trusting.wrap_socket(raw, server_hostname="elsewhere.example.org")


if __name__ == "__main__":
    unittest.main()
