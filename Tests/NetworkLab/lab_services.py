"""What runs on the lab's public hosts: `caucus serve` at the host's own address, coturn from
turnserver.conf, and a test certificate authority (openssl) whose certificates name a host by
its IP address."""

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

TURN_CONFIG = HERE / "turnserver.conf"
TURN_REALM = "caucus.lab"


def openssl(*arguments):
    subprocess.run(["openssl", *arguments], check=True, capture_output=True, timeout=30)


class TestCA:
    """A certificate authority of the test's own, in a temporary folder: `issue` makes a P-256
    key and a certificate for an IP address (its subjectAltName), signed by the CA."""

    def __init__(self):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-lab-ca-"))
        self.key = self.folder / "ca.key"
        self.certificate = self.folder / "ca.pem"
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=Caucus network lab test CA", "-keyout", str(self.key), "-out", str(self.certificate),
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def issue(self, name, address):
        """(certificate, key) paths for a server reached at `address`."""
        key, request, certificate = (self.folder / f"{name}.{suffix}" for suffix in ("key", "csr", "pem"))
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={address}",
                "-keyout", str(key), "-out", str(request))
        extensions = self.folder / f"{name}.ext"
        extensions.write_text(f"subjectAltName=IP:{address}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
        openssl("x509", "-req", "-in", str(request), "-CA", str(self.certificate), "-CAkey", str(self.key), "-CAcreateserial",
                "-days", "2", "-out", str(certificate), "-extfile", str(extensions))
        return certificate, key

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


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
        certificate, key = ca.issue("turn", host.address)
        fields = {"ADDRESS": host.address, "CERT": certificate, "KEY": key, "SECRET": self.secret, "REALM": TURN_REALM, "FOLDER": self.folder}
        text = TURN_CONFIG.read_text()
        for field, value in fields.items():
            text = text.replace(f"@{field}@", str(value))
        self.config = self.folder / "turnserver.conf"
        self.config.write_text(text)
        self.log = open(self.folder / "turnserver.log", "w+")
        self.process = host.popen(["turnserver", "-c", str(self.config)], stdout=self.log, stderr=subprocess.STDOUT)
        for port in (3478, 443):
            wait_for_tcp(host, host.address, port, "coturn")

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
    test_class.ca = TestCA()
    test_class.addClassCleanup(test_class.ca.remove)
    test_class.turn = TurnServer(test_class.lab.public_host("turn"), test_class.ca)
    test_class.addClassCleanup(test_class.turn.stop)


def lab_server(host, arguments=()):
    """`caucus serve` in `host`'s namespace, listening and announcing media at its address (UDP,
    and ICE-TCP on the same port number)."""
    return CaucusServer(host=host.address, popen=host.popen,
                        arguments=["--media-address", host.address, "--media-port", "0", *arguments])


def port_of(base):
    return int(base.rsplit(":", 1)[1])


def tcp_socket(host):
    return host.socket(socket.AF_INET, socket.SOCK_STREAM)
