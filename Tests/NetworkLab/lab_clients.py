"""The class's people, each run in its own lab namespace: a teacher's WebSocket (the host, who
moves people), an aiortc student, a `caucus client` (SDK) student and a Chromium student on the
web console. Every student answers "what did you recognise since T" with wall-clock times."""

import contextlib
import http.client
import json
import os
import pathlib
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

from websockets.sync.client import connect as websocket_connect

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "PythonSupport"))
from caucus_server import CAUCUS, WAIT_SECONDS  # noqa: E402  (the path is set just above)
from json_lines_process import JSONLinesProcess  # noqa: E402

sys.path.insert(0, str(HERE.parent / "MediaInterop"))
from chromium_page import write_picture, write_tone  # noqa: E402

def tls_context(ca_file):
    return ssl.create_default_context(cafile=str(ca_file)) if ca_file else None


def open_class(host, base, session, ca_file=None):
    """A new console class of `session`, as its teacher's browser opens it (docs/console.md):
    its two codes, and the host's join token, exchanged for the host code. A class link admits
    only into the class its host opened with that token (its `session_key`)."""
    invites = http_request(host, base, "POST", "/console/dev/session", {"session": session}, ca_file=ca_file)
    answer = http_request(host, base, "POST", "/console/token", {"session": session, "invite": invites["hostInvite"]}, ca_file=ca_file)
    return invites, answer["token"]


class Teacher:
    """The session's host: a WebSocket from a public host of the lab (docs/protocol.md); with
    `token`, that one (a class's host token), else a host token of its own."""

    def __init__(self, host, server, session, ca_file=None, token=None):
        self.next_id = 1
        self.events = []
        scheme, rest = server.base.split("://")
        address, port = rest.rsplit(":", 1)
        connection = host.connect(address, int(port))
        self.scope = contextlib.ExitStack()
        self.ws = self.scope.enter_context(websocket_connect(f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws", sock=connection,
                                                             ssl=tls_context(ca_file), max_size=None, open_timeout=WAIT_SECONDS))
        token = token or server.token(session, "host", "teacher")
        self.user = self.request("join", session=session, userName="Teacher", token=token, protocol=1)["user"]

    def request(self, op, **arguments):
        request_id = self.next_id
        self.next_id += 1
        self.ws.send(json.dumps({"id": request_id, "op": op, **arguments}))
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            frame = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if frame.get("re") == request_id:
                if "error" in frame:
                    raise AssertionError(f"teacher: {op} refused: {frame['error']}")
                return frame.get("result", {})
            self.events.append(frame)

    def users(self):
        """name -> user id, as the session's snapshot lists them."""
        return {user["name"]: user["id"] for user in self.request("getSnapshot")["snapshot"]["users"]}

    def room_ids(self):
        return {room["name"]: room["id"] for room in self.request("getSnapshot")["snapshot"]["breakout"]["rooms"]}

    def close(self):
        self.scope.close()


def http_request(host, base, method, path, body=None, ca_file=None):
    """An HTTP(S) request from a lab host; returns the decoded JSON answer."""
    scheme, rest = base.split("://")
    address, port = rest.rsplit(":", 1)
    if scheme == "https":
        connection = http.client.HTTPSConnection(address, int(port), context=tls_context(ca_file), timeout=WAIT_SECONDS)
        connection.sock = tls_context(ca_file).wrap_socket(host.connect(address, int(port)), server_hostname=address)
    else:
        connection = http.client.HTTPConnection(address, int(port), timeout=WAIT_SECONDS)
        connection.sock = host.connect(address, int(port))
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = json.loads(response.read() or b"null")
    connection.close()
    if response.status >= 300:
        raise AssertionError(f"{method} {path}: {response.status} {payload}")
    return payload


class AiortcStudent(JSONLinesProcess):
    def __init__(self, home, server, session, name, tone, colour, size, palette, ice_servers=(), ca_file=None, ice_servers_from_join=False,
                 token=None):
        """`ice_servers`: its RTCConfiguration's; with `ice_servers_from_join`, those the server
        handed out in the join reply instead (kept as `given_ice_servers`). `token`: the join
        token (a participant token of its own by default)."""
        config = {"base": server.base, "session": session, "name": name, "token": token or server.token(session, "participant", name),
                  "tone": tone, "colour": colour, "size": size, "palette": palette, "iceServers": list(ice_servers),
                  "iceServersFromJoin": ice_servers_from_join}
        env = None
        if ca_file:
            # aiortc's TURN over TLS and the WebSocket verify with the default context: the test CA.
            env = {**os.environ, "SSL_CERT_FILE": str(ca_file)}
        super().__init__(home.student, [sys.executable, str(HERE.parent / "PythonSupport" / "aiortc_process.py"), json.dumps(config)], env=env)
        self.name = name
        ready = self.answer()
        self.user = ready["user"]
        self.given_ice_servers = ready.get("iceServers")

    def report(self, since):
        return self.ask({"op": "report", "since": since})

    def path(self):
        return self.ask({"op": "path"})

    def close(self):
        self.stop({"op": "close"})


class SDKStudent:
    """`caucus client` publishing a tone and a test pattern, reporting what it receives once a
    second as JSON (README, "Media from the terminal"); each report kept with its wall time."""

    def __init__(self, home, server, session, name, tone, size, rate=10, url=None, ca_file=None):
        """`url`: the server's WebSocket (by default the one at the server's address); `ca_file`:
        the private CA the client trusts for wss (`--ca`)."""
        scheme, rest = server.base.split("://")
        url = url or f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws"
        command = [str(CAUCUS), "client", "--session", session, "--name", name, "--url", url,
                   "--data", server.data, "--publish-tone", "--tone-hertz", str(tone), "--publish-pattern",
                   "--pattern-size", "x".join(map(str, size)), "--pattern-rate", str(rate), "--media-report", "json"]
        if ca_file:
            command += ["--ca", str(ca_file)]
        self.name = name
        self.process = home.student.popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.reports = []  # (wall time, rows)
        self.output = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            self.output.append(line)
            if line.startswith('{"media"'):
                self.reports.append((time.time(), json.loads(line)["media"]))

    def latest(self):
        return self.reports[-1] if self.reports else (0, [])

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()  # the end of its input makes it leave and exit
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def trust_in_nss(home, ca_file):
    """Makes `home`'s NSS database (where Chromium on Linux finds the user's own trust anchors)
    trust `ca_file` to identify web sites, as an administrator installing a school's CA would."""
    database = pathlib.Path(home) / ".pki" / "nssdb"
    database.mkdir(parents=True, exist_ok=True)
    for argv in (["certutil", "-d", f"sql:{database}", "-N", "--empty-password"],
                 ["certutil", "-d", f"sql:{database}", "-A", "-t", "C,,", "-n", "Caucus network lab CA", "-i", str(ca_file)]):
        subprocess.run(argv, check=True, capture_output=True, timeout=30)


class ChromiumStudent(JSONLinesProcess):
    """Headless Chromium on the web console, driven from inside its namespace
    (chromium_student.py), its fake microphone and camera playing `tone` and `colour`."""

    def __init__(self, home, tone, colour, size, extra_arguments=(), ca_file=None):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-lab-chromium-"))
        write_tone(self.folder / "tone.wav", tone)
        write_picture(self.folder / "picture.y4m", colour, size=tuple(size))
        if ca_file:
            trust_in_nss(self.folder, ca_file)
        config = {"fixtures": str(self.folder), "home": str(self.folder), "extraArguments": list(extra_arguments)}
        super().__init__(home.student, [sys.executable, str(HERE / "chromium_student.py"), json.dumps(config)])
        self.answer()

    def call(self, op, **fields):
        answer = self.ask({"op": op, **fields})
        if "error" in answer:
            raise AssertionError(f"Chromium: {answer['error']}\n" + "\n".join(self.ask({"op": "log"}).get("value", [])[-30:]))
        return answer["value"]

    def script(self, source, *args):
        return self.call("script", source=source, args=list(args))

    def promise(self, expression, *args):
        """Awaits `expression` (with `args`) in the page; returns its JSON value."""
        source = ("const done = arguments[arguments.length - 1]; const args = Array.from(arguments).slice(0, -1);"
                  f"Promise.resolve().then(() => ({expression})).then((v) => done({{value: v ?? null}}), (e) => done({{error: String(e && e.stack || e)}}));")
        outcome = self.call("async", source=source, args=list(args))
        if "error" in outcome:
            raise AssertionError(f"page: {outcome['error']}")
        return outcome["value"]

    def wait(self, expression, what, timeout=WAIT_SECONDS):
        deadline = time.monotonic() + timeout
        while not self.script(f"return Boolean({expression});"):
            if time.monotonic() > deadline:
                page = self.script("return location.href + '\\n' + document.body.innerText.slice(0, 1500)"
                                   " + '\\nname field: ' + document.querySelector('[data-testid=\"user-name\"]')?.value;")
                raise AssertionError(f"Chromium: timed out waiting for {what}\n{page}\n" + "\n".join(self.call("log")[-30:]))
            time.sleep(0.2)

    def join_console(self, url, name):
        """Opens an invite link and joins as `name`, as a person would (typing, clicking Join)."""
        self.call("get", url=url)
        ready = "document.querySelector('[data-testid=\"join-form\"]')?.offsetParent && !document.querySelector('[data-testid=\"join\"]').disabled"
        joined = "document.querySelector('[data-testid=\"participant-view\"]')?.offsetParent"
        for attempt in range(3):
            self.wait(ready, "the join form, ready")
            self.script("const field = document.querySelector('[data-testid=\"user-name\"]'); field.value = arguments[0];"
                        "field.dispatchEvent(new Event('input'));", name)
            self.script("document.querySelector('[data-testid=\"join\"]').click();")
            try:
                self.wait(joined, "the participant's view", timeout=WAIT_SECONDS / 2)
                break
            except AssertionError:
                # A click the page did not take (still loading under load): the form is there again.
                if attempt == 2:
                    raise
        self.wait("window.caucusConsole?.media?.pc && window.caucusConsole.media.slots.size > 0", "the console's media peer")

    def secure_context(self):
        """What the page says of itself: a secure context, with camera and microphone on offer."""
        return self.script("return {secure: window.isSecureContext, mediaDevices: Boolean(navigator.mediaDevices?.getUserMedia),"
                           " protocol: location.protocol};")

    def observe(self, palette):
        self.script((HERE / "console_observer.js").read_text(), palette)

    def report(self, since):
        """As aiortc_process's: times in seconds (the page keeps Date.now()'s milliseconds)."""
        report = self.script("return window.labObserver.report(arguments[0]);", since * 1000)
        for labels in report["kinds"].values():
            for label, times in labels.items():
                labels[label] = [at / 1000 for at in times]
        return report

    def path(self):
        return self.promise("window.labObserver.path()")

    def close(self):
        self.stop({"op": "quit"})
        shutil.rmtree(self.folder, ignore_errors=True)


def recognised(name, report, names):
    """What an aiortc or Chromium student's `report` says it heard and saw (labels), and every
    slot that recognised someone other than the user the slot map puts there (`names`: user id ->
    name, for slots whose report has no name)."""
    problems = []
    for mid, slot in report["slots"].items():
        owner = slot.get("name") or names.get(slot["user"])
        for label in slot["labels"]:
            if label != owner:
                problems.append(f"{name}'s {slot['kind']} slot {mid} (the map says {owner}) recognised {label}")
    return set(report["kinds"]["audio"]), set(report["kinds"]["video"]), problems


def connect_tcp(host, address, port):
    return host.connect(address, port)


def tcp_open(host, address, port):
    try:
        host.connect(address, port, timeout=2).close()
        return True
    except (OSError, socket.timeout):
        return False
