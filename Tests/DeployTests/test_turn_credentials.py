"""`caucus serve --turn-url … --turn-secret-file …`: every joined user is given the TURN servers
with credentials of its own, as coturn's `use-auth-secret` checks them (username
`<expiry>:<session>.<user>`, password base64(HMAC-SHA1(secret, username))), in its join reply, in
every resume reply and on `getIceServers`; never before a join, never without the flags, and the
secret itself never. Bad flags end `serve` at once, naming the flag. (coturn accepting these
credentials, and a browser relaying through it, is the network lab's: Tests/NetworkLab.)"""

import asyncio
import base64
import functools
import hashlib
import hmac
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import unittest

from tls_support import WAIT_SECONDS, Seat, run_to_end
from caucus_server import CaucusServer
from websockets.asyncio.client import connect

URLS = ["turns:turn.example.org:443?transport=tcp", "turn:turn.example.org:3478?transport=udp"]
SECRET = "a shared secret, 32 bytes of it!"


def coturn_password(secret, username):
    """What coturn computes for `use-auth-secret` from the username."""
    return base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()).decode()


class TURNCredentialTests(unittest.TestCase):
    def setUp(self):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="caucus-turn-"))
        self.addCleanup(shutil.rmtree, self.folder, True)
        self.secret_file = self.folder / "turn-secret"
        self.secret_file.write_text(SECRET + "\n")

    def serve(self, arguments=(), env=None):
        popen = functools.partial(subprocess.Popen, env={**os.environ, **env}) if env else subprocess.Popen
        server = CaucusServer(arguments=list(arguments), popen=popen)
        self.addCleanup(server.stop)
        return server

    def url(self, server):
        return server.base.replace("http", "ws") + "/ws"

    def check_credentials(self, servers, session, user, hours, not_before):
        """One entry with every URL, credentials for `session`.`user` valid `hours` from about now."""
        self.assertEqual(len(servers), 1, servers)
        self.assertEqual(set(servers[0]), {"urls", "username", "credential"})
        self.assertEqual(servers[0]["urls"], URLS)
        expiry, name = servers[0]["username"].split(":")
        self.assertEqual(name, f"{session}.{user}")
        self.assertGreaterEqual(int(expiry), int(not_before) + hours * 3600)
        self.assertLessEqual(int(expiry), time.time() + hours * 3600)
        self.assertEqual(servers[0]["credential"], coturn_password(SECRET, servers[0]["username"]))
        self.assertNotEqual(servers[0]["credential"], coturn_password("another secret", servers[0]["username"]))
        return int(expiry)

    def test_every_join_and_resume_reply_and_getIceServers_give_the_users_own_credentials(self):
        server = self.serve(["--turn-url", URLS[0], "--turn-url", URLS[1], "--turn-secret-file", str(self.secret_file),
                             "--turn-credential-hours", "2"])
        self.assertTrue(any(f"TURN for clients: {URLS[0]}, {URLS[1]}" in line for line in server.output), "".join(server.output))

        async def scenario():
            started = time.time()
            ann = await Seat.join(self.url(server), server.token("Demo", "host", "ann"), name="Ann")
            bo = await Seat.join(self.url(server), server.token("Demo", "participant", "bo"), name="Bo")
            session = ann.reply["secret"].split(".")[0]
            first = self.check_credentials(ann.reply["iceServers"], session, ann.reply["user"], 2, started)
            self.check_credentials(bo.reply["iceServers"], session, bo.reply["user"], 2, started)
            self.assertNotEqual(ann.reply["iceServers"][0]["username"], bo.reply["iceServers"][0]["username"])
            # Later, on the same connection: minted anew.
            await asyncio.sleep(1.1)
            asked = await bo.request({"op": "getIceServers"})
            self.assertGreater(self.check_credentials(asked["iceServers"], session, bo.reply["user"], 2, started), first)
            # A resume on a new connection: fresh ones again, with the seat's own name.
            seq = (await ann.request({"op": "ping"}))["seq"]
            await ann.close()
            back = Seat(await connect(self.url(server), open_timeout=WAIT_SECONDS))
            resumed = await back.request({"op": "resume", "secret": ann.reply["secret"], "lastSeq": seq})
            self.assertGreater(self.check_credentials(resumed["iceServers"], session, ann.reply["user"], 2, started), first)
            # Never before a join: the request is refused like any other.
            stranger = await connect(self.url(server), open_timeout=WAIT_SECONDS)
            await stranger.send(json.dumps({"id": 1, "op": "getIceServers"}))
            refusal = json.loads(await asyncio.wait_for(stranger.recv(), WAIT_SECONDS))
            self.assertEqual(refusal["error"]["name"], "notJoined", refusal)
            self.assertNotIn("iceServers", json.dumps(refusal))
            for seat in (back, bo):
                await seat.close()
            await stranger.close()
            return [ann.reply, bo.reply, asked, resumed]

        replies = asyncio.run(scenario())
        self.assertNotIn(SECRET, json.dumps(replies))
        self.assertNotIn(SECRET, "".join(server.output))

    def test_the_environment_gives_the_same(self):
        server = self.serve(env={"CAUCUS_TURN_URLS": ",".join(URLS), "CAUCUS_TURN_SECRET_FILE": str(self.secret_file)})

        async def join():
            seat = await Seat.join(self.url(server), server.token("Demo", "host", "ann"))
            await seat.close()
            return seat.reply

        started = time.time()
        reply = asyncio.run(join())
        self.check_credentials(reply["iceServers"], reply["secret"].split(".")[0], reply["user"], 12, started)

    def test_without_the_flags_no_reply_names_a_turn_server(self):
        server = self.serve()

        async def scenario():
            seat = await Seat.join(self.url(server), server.token("Demo", "host", "ann"))
            asked = await seat.request({"op": "getIceServers"})
            seq = (await seat.request({"op": "ping"}))["seq"]
            await seat.close()
            back = Seat(await connect(self.url(server), open_timeout=WAIT_SECONDS))
            resumed = await back.request({"op": "resume", "secret": seat.reply["secret"], "lastSeq": seq})
            await back.close()
            return seat.reply, asked, resumed

        joined, asked, resumed = asyncio.run(scenario())
        self.assertNotIn("iceServers", joined)
        self.assertNotIn("iceServers", resumed)
        self.assertEqual(asked, {"iceServers": []})
        self.assertFalse(any("TURN" in line for line in server.output), "".join(server.output))

    def test_bad_flags_end_serve_at_once_naming_the_flag(self):
        empty = self.folder / "empty"
        empty.write_text("\n")
        secret = ["--turn-secret-file", str(self.secret_file)]
        cases = [
            (["--turn-url", "stun:turn.example.org:3478", *secret], "--turn-url stun:turn.example.org:3478: not a turn: or turns: URL"),
            (["--turn-url", "turn:turn.example.org:99999", *secret], "--turn-url turn:turn.example.org:99999: the port is"),
            (["--turn-url", URLS[0]], "--turn-url needs --turn-secret-file"),
            (["--turn-url", URLS[0], "--turn-secret-file", str(self.folder / "missing")],
             f"--turn-secret-file {self.folder / 'missing'}: cannot be read: No such file or directory"),
            (["--turn-url", URLS[0], "--turn-secret-file", str(empty)], f"--turn-secret-file {empty}: the file is empty"),
            (secret, "--turn-secret-file needs --turn-url"),
            (["--turn-url", URLS[0], *secret, "--turn-credential-hours", "0"], "--turn-credential-hours is 1 to 168, not 0"),
            (["--turn-credential-hours", "3"], "--turn-credential-hours is for TURN"),
        ]
        for arguments, message in cases:
            with self.subTest(arguments=arguments):
                status, output = run_to_end(arguments)
                self.assertNotEqual(status, 0, output)
                self.assertIn(message, output)
                self.assertNotIn("listening", output)
                self.assertNotIn(SECRET, output)


if __name__ == "__main__":
    unittest.main()
