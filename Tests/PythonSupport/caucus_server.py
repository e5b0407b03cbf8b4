"""A real `caucus serve` on a free loopback port and a fresh data folder, for the Python tests
(the console's browser tests and the media interop tests)."""

import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
# CAUCUS points the tests at another build (for instance one carrying older console assets).
CAUCUS = pathlib.Path(os.environ.get("CAUCUS", ROOT / ".build" / "debug" / "caucus"))
WAIT_SECONDS = 20


class CaucusServer:
    """`caucus serve` on a free loopback port and a fresh data folder: its development app."""

    def __init__(self, apps=None, arguments=(), host="127.0.0.1", popen=subprocess.Popen, port=0, data=None):
        """`apps` (a list of {"key", "secret"}) configures production apps: no development app.
        `arguments` are added to `caucus serve`'s. `host` and `port` are where it listens (0: a
        free port), and `popen` starts the command (the network lab's runs it in a namespace).
        `data`: a data folder to serve from (one an earlier server left), which `stop()` then
        leaves in place; without it, a fresh one that `stop()` deletes."""
        if not CAUCUS.exists():
            raise RuntimeError(f"{CAUCUS} is missing: run `swift build --traits Codecs` first")
        self.owns_data = data is None
        self.data = tempfile.mkdtemp(prefix="caucus-test-") if data is None else str(data)
        command = [str(CAUCUS), "serve", "--host", host, "--port", str(port), "--data", self.data, "--log-level", "warning", *arguments]
        if apps is not None:
            config = pathlib.Path(self.data) / "apps.json"
            config.write_text(json.dumps({"apps": apps}))
            command += ["--config", str(config)]
        self.process = popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output = []
        lines = queue.Queue()

        def read():
            for line in self.process.stdout:
                self.output.append(line)
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                self.stop()
                raise RuntimeError("caucus serve did not announce its port:\n" + "".join(self.output))
            if line is None:
                raise RuntimeError("caucus serve exited:\n" + "".join(self.output))
            # https with --tls-cert and --tls-key.
            match = re.search(r"listening on (https?)://" + re.escape(host) + r":(\d+)", line)
            if match:
                self.port = int(match.group(2))
                self.base = f"{match.group(1)}://{host}:{self.port}"
                return

    def token(self, session, role, user_identity):
        """A join token for the development app, minted as an operator would:
        `caucus token --data <this server's data folder>`."""
        command = [str(CAUCUS), "token", "--session", session, "--role", role, "--user-identity", user_identity, "--data", self.data]
        return subprocess.run(command, capture_output=True, text=True, check=True, timeout=WAIT_SECONDS).stdout.strip()

    def media_endpoint(self):
        """The media address and port every answer announces, as `caucus serve` prints them
        ("Media (WebRTC, UDP): 127.0.0.1:40000", just after the line with the HTTP port)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            for line in list(self.output):
                match = re.search(r"Media \(WebRTC, UDP\): (\S+):(\d+)", line)
                if match:
                    return match.group(1), int(match.group(2))
            time.sleep(0.05)
        raise RuntimeError("caucus serve did not announce its media port:\n" + "".join(self.output))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        if self.owns_data:
            shutil.rmtree(self.data, ignore_errors=True)
