"""deploy/caucus.service, the systemd unit docs/deploy.md ships: `systemd-analyze verify` finds
nothing wrong with it (and does find what is wrong with broken copies of it, so the check can
fail); it keeps what the page promises (a user of its own, restarted on failure, reloaded by
SIGHUP, hardened, its data where systemd makes it, production apps and TLS); and its command
line runs: `caucus serve` with the unit's own options, only the machine's addresses, paths and
name swapped for a test's, serves HTTPS, takes ExecReload's signal for a renewed certificate,
and stops cleanly on SIGTERM as `systemctl stop` sends it.

The unit is not run under systemd itself here (the test machine's PID 1 is not systemd): what
the hardening options allow at run time is checked by reading them, not by a boot."""

import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from tls_support import CAUCUS, WAIT_SECONDS, TLSFiles, wait_for_serial
from caucus_server import CaucusServer  # tls_support puts Tests/PythonSupport on the path

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "caucus.service"
INSTALLED = "/usr/local/bin/caucus"


def read_unit(text):
    """{section: {key: [values]}}: comments dropped, a line ending in a backslash joined to the
    next as systemd joins it."""
    sections, current = {}, None
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def one(unit, section, key):
    values = unit.get(section, {}).get(key, [])
    if len(values) != 1:
        raise AssertionError(f"[{section}] {key}= is set {len(values)} times, not once")
    return values[0]


def serve_options(unit):
    """ExecStart's `caucus serve` options, in order, as (flag, value) pairs."""
    command = shlex.split(one(unit, "Service", "ExecStart"))
    if command[:2] != [INSTALLED, "serve"]:
        raise AssertionError(f"ExecStart does not run {INSTALLED} serve: {command}")
    arguments = command[2:]
    if len(arguments) % 2 or not all(flag.startswith("--") for flag in arguments[::2]):
        raise AssertionError(f"ExecStart's options are not --flag value pairs: {arguments}")
    return list(zip(arguments[::2], arguments[1::2]))


def verify(text):
    """What `systemd-analyze verify` says of `text` saved as caucus.service: [] when nothing.
    verify checks that ExecStart's program exists and is executable, and this machine has no
    /usr/local/bin/caucus: the copy names the build's `caucus` there instead."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-unit-"))
    try:
        path = folder / "caucus.service"
        path.write_text(text.replace(INSTALLED, str(CAUCUS)))
        done = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=120)
        complaints = [line for line in (done.stdout + done.stderr).splitlines() if "caucus.service" in line]
        if done.returncode != 0 and not complaints:
            complaints = [f"systemd-analyze verify exited {done.returncode}: {done.stdout}{done.stderr}"]
        return complaints
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class VerifiedUnitTests(unittest.TestCase):
    def setUp(self):
        if shutil.which("systemd-analyze") is None:
            self.skipTest("systemd-analyze is missing (Debian: apt-get install systemd): deploy/caucus.service was not verified")
        if not CAUCUS.exists():
            raise RuntimeError(f"{CAUCUS} is missing: run `swift build --traits Codecs` first")

    def test_systemd_analyze_verify_finds_nothing_wrong(self):
        self.assertEqual(verify(UNIT.read_text()), [])

    def test_a_broken_unit_is_caught(self):
        text = UNIT.read_text()
        for what, old, new in (
            ("a misspelt key", "NoNewPrivileges=yes", "NoNewPrivilege=yes"),
            ("a value systemd does not know", "Restart=on-failure", "Restart=on-fail"),
            ("a missing program", f"ExecStart={INSTALLED} ", f"ExecStart={INSTALLED}-missing "),
            ("a relative command", "ExecReload=/bin/kill", "ExecReload=bin/kill"),
        ):
            with self.subTest(what):
                self.assertIn(old, text)
                self.assertNotEqual(verify(text.replace(old, new)), [], f"{what} went unnoticed")


class UnitPromisesTests(unittest.TestCase):
    """What docs/deploy.md says of the unit, read from the unit."""

    unit = read_unit(UNIT.read_text())

    def test_it_runs_as_a_user_of_its_own_and_never_as_root(self):
        for key in ("User", "Group"):
            self.assertNotIn(one(self.unit, "Service", key), ("", "root", "0"))
        self.assertEqual(one(self.unit, "Service", "NoNewPrivileges"), "yes")

    def test_its_data_folder_is_the_state_directory_systemd_makes(self):
        self.assertEqual(one(self.unit, "Service", "StateDirectory"), "caucus")
        self.assertEqual(dict(serve_options(self.unit)).get("--data"), "/var/lib/caucus")
        self.assertEqual(one(self.unit, "Service", "ProtectSystem"), "strict", "everything else read-only")
        for key in ("ProtectHome", "PrivateTmp", "PrivateDevices"):
            self.assertEqual(one(self.unit, "Service", key), "yes", key)

    def test_it_serves_tls_on_production_apps_at_a_public_url(self):
        options = dict(serve_options(self.unit))
        for flag in ("--tls-cert", "--tls-key", "--config"):
            self.assertTrue(options.get(flag, "").startswith("/etc/caucus/"), f"{flag} {options.get(flag)}")
        self.assertRegex(options.get("--public-url", ""), r"^https://[a-z0-9.-]+$")
        self.assertEqual(options.get("--host"), "0.0.0.0")

    def test_low_ports_come_from_one_capability_and_no_other(self):
        options = dict(serve_options(self.unit))
        low = [flag for flag in ("--port", "--http-redirect-port") if int(options.get(flag, "8080")) < 1024]
        self.assertTrue(low, "the unit serves 443 and 80")
        self.assertEqual(one(self.unit, "Service", "AmbientCapabilities"), "CAP_NET_BIND_SERVICE")
        self.assertEqual(one(self.unit, "Service", "CapabilityBoundingSet"), "CAP_NET_BIND_SERVICE")

    def test_it_restarts_on_failure_and_reloads_by_sighup(self):
        self.assertEqual(one(self.unit, "Service", "Restart"), "on-failure")
        self.assertEqual(one(self.unit, "Service", "ExecReload"), "/bin/kill -HUP $MAINPID")

    def test_it_starts_once_the_network_is_up_and_at_boot(self):
        self.assertIn("network-online.target", one(self.unit, "Unit", "Wants"))
        self.assertIn("network-online.target", one(self.unit, "Unit", "After"))
        self.assertEqual(one(self.unit, "Install", "WantedBy"), "multi-user.target")


class UnitCommandRunsTests(unittest.TestCase):
    """ExecStart as written, but for what only the real machine has: its address (the test's
    server listens on 127.0.0.1 and a free port, CaucusServer's own --host, --port and --data),
    its apps file, its certificate, its name, and its fixed ports."""

    APP = {"key": "school", "secret": "school-secret-for-the-unit-test"}

    def test_the_units_command_serves_https_reloads_on_execreload_and_stops_on_sigterm(self):
        unit = read_unit(UNIT.read_text())
        files = TLSFiles()
        swapped = {
            "--tls-cert": str(files.certificate),
            "--tls-key": str(files.key),
            "--public-url": "https://localhost",
            "--http-redirect-port": "0",
            "--media-port": "0",
        }
        given_by_the_test = {"--host", "--port", "--data", "--config"}
        arguments = []
        for flag, value in serve_options(unit):
            if flag not in given_by_the_test:
                arguments += [flag, swapped.get(flag, value)]
        # No file check within the test: a new certificate served comes from the SIGHUP.
        server = CaucusServer(apps=[self.APP], arguments=[*arguments, "--tls-check-seconds", "3600"])
        try:
            self.assertTrue(server.base.startswith("https://"), "".join(server.output))
            self.assertIn("Public URL: https://localhost", "".join(server.output))
            # Announced once that listener runs, after the main one.
            deadline = time.monotonic() + WAIT_SECONDS
            while "HTTP redirect: http://" not in "".join(server.output):
                self.assertLess(time.monotonic(), deadline, "".join(server.output))
                time.sleep(0.05)
            files.issue(serial=2)
            reload = shlex.split(one(unit, "Service", "ExecReload").replace("$MAINPID", str(server.process.pid)))
            subprocess.run(reload, check=True, timeout=10)
            wait_for_serial(server.port, files, 2)
            self.assertIsNone(server.process.poll(), "the reload ended the server")
            stop_within = int(re.fullmatch(r"(\d+)s?", one(unit, "Service", "TimeoutStopSec")).group(1))
            server.process.send_signal(signal.SIGTERM)
            self.assertEqual(server.process.wait(timeout=stop_within), 0, "".join(server.output))
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main()
