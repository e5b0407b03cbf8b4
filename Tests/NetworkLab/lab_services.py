"""What runs on the lab's public hosts: `caucus serve` at the host's own address, coturn from
turnserver.conf, and a throwaway certificate authority (Tests/PythonSupport/test_ca.py) whose
certificates name a host by its IP address, and the server by a name too."""

import base64
import hashlib
import hmac
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "PythonSupport"))
from caucus_server import CaucusServer, WAIT_SECONDS  # noqa: E402  (the path is set just above)
from test_ca import TestCA  # noqa: E402

TURN_CONFIG = HERE / "turnserver.conf"
TURN_REALM = "caucus.lab"


SERVER_NAME = "caucus.test"  # the server's name in the students' hosts files (RFC 2606)
SERVER_PORT = 443


def new_ca(name="ca"):
    """A throwaway CA (test_ca.TestCA) in a temporary folder: `.path` is its certificate; remove
    the folder with `remove_ca`."""
    return TestCA(tempfile.mkdtemp(prefix="caucus-lab-ca-"), name)


def remove_ca(ca):
    shutil.rmtree(ca.directory, ignore_errors=True)


def turn_credentials(secret, name, lifetime=3600):
    """coturn's time-limited credentials for `use-auth-secret`: ("<expiry>:<name>", base64 HMAC-SHA1)."""
    username = f"{int(time.time()) + lifetime}:{name}"
    password = base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()).decode()
    return username, password


def wait_for_tcp(host, address, port, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            host.connect(address, port, timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} does not accept connections on {address}:{port}")
            time.sleep(0.1)


class TurnServer:
    """coturn on a public host of the lab, from turnserver.conf, with a certificate for 443."""

    def __init__(self, host, ca):
        self.host = host
        self.address = host.address
        self.secret = secrets.token_hex(24)
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-lab-turn-"))
        certificate, key = ca.issue("turn", serial=2, names=(host.address,))
        fields = {"ADDRESS": host.address, "CERT": certificate, "KEY": key, "SECRET": self.secret, "REALM": TURN_REALM, "FOLDER": self.folder}
        text = TURN_CONFIG.read_text()
        for field, value in fields.items():
            text = text.replace(f"@{field}@", str(value))
        self.config = self.folder / "turnserver.conf"
        self.config.write_text(text)
        self.log = open(self.folder / "turnserver.log", "w+")
        # --verbose: the log then names each relay's username (who relays), which tests read.
        self.process = host.popen(["turnserver", "-c", str(self.config), "--verbose"], stdout=self.log, stderr=subprocess.STDOUT)
        for port in (3478, 443):
            wait_for_tcp(host, host.address, port, "coturn")

    def server_flags(self, urls):
        """`caucus serve`'s flags that hand its users these TURN URLs with credentials minted from
        this coturn's secret (written to a file in its folder: the secret is never an argument)."""
        secret_file = self.folder / "turn-secret"
        secret_file.write_text(self.secret + "\n")
        return [argument for url in urls for argument in ("--turn-url", url)] + ["--turn-secret-file", str(secret_file)]

    def allocations(self, username):
        """The relays coturn allocated for `username`: its log's lines saying so."""
        return [line for line in self.output().splitlines() if f"<{username}>" in line and ("ALLOCATE processed, success" in line or ": new, " in line)]

    def ice_servers(self, name, urls):
        """An RTCConfiguration's iceServers entry for `name`, with fresh credentials."""
        username, password = turn_credentials(self.secret, name)
        return [{"urls": urls, "username": username, "credential": password}]

    def output(self):
        self.log.flush()
        return (self.folder / "turnserver.log").read_text()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def open_lab_with_turn(test_class):
    """For a test class's setUpClass: its `lab` (netlab.Lab), `ca` (TestCA) and `turn` (coturn on
    a public host of its own), each removed at the class's cleanup."""
    from netlab import Lab

    test_class.lab = Lab()
    test_class.addClassCleanup(test_class.lab.close)
    test_class.ca = new_ca()
    test_class.addClassCleanup(remove_ca, test_class.ca)
    test_class.turn = TurnServer(test_class.lab.public_host("turn"), test_class.ca)
    test_class.addClassCleanup(test_class.turn.stop)


def lab_server(host, ca=None, arguments=()):
    """`caucus serve` in `host`'s namespace, listening and announcing media at its address (UDP,
    and ICE-TCP on the same port number). With `ca`: HTTPS and WSS on 443, its certificate (from
    `ca`) naming the address and SERVER_NAME."""
    tls = []
    if ca is not None:
        certificate, key = ca.issue("server", serial=3, names=(host.address, SERVER_NAME))
        tls = ["--tls-cert", str(certificate), "--tls-key", str(key)]
    return CaucusServer(host=host.address, popen=host.popen, port=SERVER_PORT if ca is not None else 0,
                        arguments=["--media-address", host.address, "--media-port", "0", *tls, *arguments])


def port_of(base):
    return int(base.rsplit(":", 1)[1])


def tcp_socket(host):
    return host.socket(socket.AF_INET, socket.SOCK_STREAM)
