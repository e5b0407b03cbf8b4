"""`caucus serve --max-waiting --health-port`: at its ceiling of connections not joined the
server closes a new one at once, while a joined user goes on and the health port answers; and
it runs with its open-file limit raised to the hard one."""

import asyncio
import functools
import re
import resource
import socket
import subprocess
import time
import unittest
import urllib.request

from tls_support import WAIT_SECONDS, Seat
from caucus_server import CaucusServer


def closed_within(raw, seconds):
    """What the server sent before closing `raw` within `seconds`, or None if it stayed open."""
    raw.settimeout(seconds)
    received = b""
    try:
        while True:
            chunk = raw.recv(4096)
            if not chunk:
                return received
            received += chunk
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        return received


class CeilingTests(unittest.TestCase):
    def setUp(self):
        self.server = CaucusServer(arguments=["--max-waiting", "3", "--health-port", "0", "--join-deadline", "30"])
        self.health = self.health_port()

    def tearDown(self):
        self.server.stop()

    def health_port(self):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            for line in list(self.server.output):
                match = re.search(r"Health \(whatever the main port holds\): http://127\.0\.0\.1:(\d+)/healthz", line)
                if match:
                    return int(match.group(1))
            time.sleep(0.05)
        self.fail("no health port announced:\n" + "".join(self.server.output))

    def health_get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.health}{path}", timeout=10) as response:
            return response.status, response.read().decode()

    def unjoined(self):
        _, text = self.health_get("/metrics")
        match = re.search(r"^caucus_unjoined_connections (\S+)$", text, re.MULTILINE)
        return float(match.group(1)) if match else None

    def test_at_the_ceiling_a_new_connection_is_closed_at_once_while_a_joined_user_and_the_health_port_go_on(self):
        async def run():
            token = self.server.token("Ceiling", "host", "ada")
            seat = await Seat.join(f"ws://127.0.0.1:{self.server.port}/ws", token, session="Ceiling")
            silent = [socket.create_connection(("127.0.0.1", self.server.port)) for _ in range(3)]
            try:
                deadline = time.monotonic() + WAIT_SECONDS
                while self.unjoined() != 3:
                    self.assertLess(time.monotonic(), deadline, f"unjoined: {self.unjoined()}")
                    await asyncio.sleep(0.05)
                # The deadline is 30 s: a close within 5 s is the ceiling's, with nothing sent.
                with socket.create_connection(("127.0.0.1", self.server.port)) as fourth:
                    fourth.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    self.assertEqual(await asyncio.to_thread(closed_within, fourth, 5), b"")
                await seat.request({"op": "chat", "text": "still here"})
                self.assertEqual(self.health_get("/healthz"), (200, '{"status":"ok"}'))
                self.assertEqual(self.health_get("/readyz")[0], 200)
            finally:
                for connection in silent:
                    connection.close()
            await seat.close()

        asyncio.run(run())
        self.assertIsNone(self.server.process.poll())



class OpenFileLimitTests(unittest.TestCase):
    def test_the_soft_open_file_limit_is_raised_to_the_hard_one(self):
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.assertGreater(hard, 512, "the hard limit leaves nothing to raise")

        def low_soft_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))

        server = CaucusServer(popen=functools.partial(subprocess.Popen, preexec_fn=low_soft_limit))
        try:
            with open(f"/proc/{server.process.pid}/limits") as file:
                soft, raised = re.search(r"^Max open files\s+(\S+)\s+(\S+)", file.read(), re.MULTILINE).groups()
            self.assertEqual((int(soft), int(raised)), (hard, hard))
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
