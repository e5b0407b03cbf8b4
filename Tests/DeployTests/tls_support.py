"""What the deploy tests share: a test CA, `caucus serve` with its certificate, and clients
that check what they are served (curl, Python's ssl, the websockets library)."""

import asyncio
import json
import pathlib
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import CAUCUS, CaucusServer  # noqa: E402
from cryptography import x509  # noqa: E402
from test_ca import TestCA  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

WAIT_SECONDS = 20


class TLSFiles:
    """A fresh CA in a temporary folder, and the server certificate it issued (serial 1) at
    cert.pem / cert.key: the paths `caucus serve` is given, rewritten by renewals."""

    def __init__(self):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-tls-"))
        self.ca = TestCA(self.folder, "ca")
        self.certificate, self.key = self.issue(serial=1)

    def issue(self, serial, **options):
        """A new certificate written over cert.pem and cert.key, as a renewal does."""
        issued_certificate, issued_key = self.ca.issue(f"issued-{serial}", serial, **options)
        certificate, key = self.folder / "cert.pem", self.folder / "cert.key"
        key.write_bytes(issued_key.read_bytes())
        certificate.write_bytes(issued_certificate.read_bytes())
        return certificate, key

    def arguments(self):
        return ["--tls-cert", str(self.certificate), "--tls-key", str(self.key)]

    def context(self):
        """A client context trusting this CA only."""
        return ssl.create_default_context(cafile=str(self.ca.path))


def tls_server(files, *extra):
    """`caucus serve` over TLS with a check of the files every second."""
    return CaucusServer(arguments=[*files.arguments(), "--tls-check-seconds", "1", *extra])


class TLSServerTestCase(unittest.TestCase):
    """One `caucus serve` over TLS (with `server_arguments`) for a whole test class."""

    server_arguments = ()

    @classmethod
    def setUpClass(cls):
        cls.files = TLSFiles()
        cls.server = tls_server(cls.files, *cls.server_arguments)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()


def served_serial(port, files):
    """The serial number of the certificate a new connection is served."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_SECONDS) as raw:
        with files.context().wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True)).serial_number


def wait_for_serial(port, files, serial):
    """Waits until new connections are served `serial`; returns how long that took."""
    started = time.monotonic()
    while True:
        seen = served_serial(port, files)
        if seen == serial:
            return time.monotonic() - started
        if time.monotonic() - started > WAIT_SECONDS:
            raise AssertionError(f"still served serial {seen}, not {serial}")
        time.sleep(0.2)


def curl(*arguments):
    """curl's exit status and output (headers with -D -)."""
    done = subprocess.run(["curl", "-sS", "--max-time", str(WAIT_SECONDS), *arguments], capture_output=True, text=True, timeout=WAIT_SECONDS + 5)
    return done.returncode, done.stdout + done.stderr


def header(output, name):
    """The value of header `name` in curl's `-D -` output, or None."""
    for line in output.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def run_to_end(arguments, timeout=WAIT_SECONDS):
    """`caucus serve` with `arguments` on a fresh data folder, expected to end by itself: its
    exit status and everything it printed."""
    data = tempfile.mkdtemp(prefix="caucus-test-")
    command = [str(CAUCUS), "serve", "--host", "127.0.0.1", "--port", "0", "--data", data, *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


class Seat:
    """A user joined over a WebSocket: requests numbered in order, replies read in order."""

    def __init__(self, websocket):
        self.websocket = websocket
        self.next_id = 1

    @classmethod
    async def join(cls, url, token, session="Demo", name="Ada", context=None):
        websocket = await connect(url, ssl=context, open_timeout=WAIT_SECONDS)
        seat = cls(websocket)
        seat.reply = await seat.request({"op": "join", "session": session, "userName": name, "token": token})
        return seat

    async def request(self, frame):
        """Sends `frame`; returns its reply's `result` (raises on an error reply)."""
        number = self.next_id
        self.next_id += 1
        await self.websocket.send(json.dumps({"id": number, **frame}))
        while True:
            message = json.loads(await asyncio.wait_for(self.websocket.recv(), WAIT_SECONDS))
            if message.get("re") == number:
                if "error" in message:
                    raise AssertionError(f"{frame['op']} refused: {message['error']}")
                return message["result"]

    async def close(self):
        await self.websocket.close()
