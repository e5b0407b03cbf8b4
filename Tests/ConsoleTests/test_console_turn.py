"""The console's RTCPeerConnection takes the TURN servers the server hands out (docs/turn.md):
with `caucus serve --turn-url … --turn-secret-file …` the page's peer is made with exactly the
`iceServers` of its join reply, again with those of the resume reply after a reload, and asks
`getIceServers` for fresh ones when its credentials are about to expire; without the flags it
has none. (That a browser on a TURN-only network gets its media through coturn is the network
lab's: Tests/NetworkLab/test_console_over_turn.py.)"""

import base64
import hashlib
import hmac
import shutil
import tempfile
import time
import unittest
from pathlib import Path

from console_support import CaucusServer, ConsoleTestCase

SESSION = "Relayed"
# Nothing listens there: the page's relay gathering fails and media goes by the host candidate,
# as on loopback it can. The credentials are what is checked.
URLS = ["turn:127.0.0.1:9?transport=tcp", "turns:127.0.0.1:9?transport=tcp"]
SECRET = "console-test-secret"

PEER_CONFIGURATION = """
const media = window.caucusConsole?.media;
const configured = media?.pc?.getConfiguration().iceServers ?? null;
return {configured: configured && configured.map((server) => ({urls: [].concat(server.urls), username: server.username, credential: server.credential})),
        given: window.caucusConsole?.connection?.iceServers ?? null, you: window.caucusConsole?.model?.you ?? null, state: media?.pc?.connectionState ?? null};
"""

# Run in the reloaded page before its own scripts: what the server sends reaches the page only
# once the camera and microphone have opened (and 200 ms more), so the page's media starts
# before its resume reply is in, as on a fast machine with a slow network.
HOLD_REPLIES_UNTIL_DEVICES = """
(() => {
  let devicesOpened;
  const opened = new Promise((resolve) => { devicesOpened = resolve; });
  const devices = navigator.mediaDevices;
  const getUserMedia = devices.getUserMedia.bind(devices);
  devices.getUserMedia = (constraints) => getUserMedia(constraints).finally(() => setTimeout(devicesOpened, 200));
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    set onmessage(handler) { super.onmessage = (message) => opened.then(() => handler(message)); }
  };
})();
"""


class ConsoleTURNTests(ConsoleTestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = Path(tempfile.mkdtemp(prefix="caucus-console-turn-"))
        (cls.folder / "secret").write_text(SECRET + "\n")
        arguments = [argument for url in URLS for argument in ("--turn-url", url)] + ["--turn-secret-file", str(cls.folder / "secret")]
        cls.server = CaucusServer(arguments=arguments)
        cls.browsers = []

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def peer(self, page):
        """The page's peer configuration once its peer is connected."""
        page.wait(lambda: page.driver.execute_script(PEER_CONFIGURATION)["state"] == "connected", "the console's media peer, connected")
        return page.driver.execute_script(PEER_CONFIGURATION)

    def check(self, servers, user, not_before):
        self.assertEqual(len(servers), 1, servers)
        self.assertEqual(servers[0]["urls"], URLS)
        expiry, name = servers[0]["username"].split(":")
        self.assertTrue(name.endswith(f".{user}"), servers)
        self.assertGreaterEqual(int(expiry), int(not_before) + 12 * 3600)
        expected = base64.b64encode(hmac.new(SECRET.encode(), servers[0]["username"].encode(), hashlib.sha1).digest()).decode()
        self.assertEqual(servers[0]["credential"], expected)
        return int(expiry)

    def test_the_peer_relays_by_the_servers_of_the_join_then_of_the_resume_then_fresh_ones(self):
        started = time.time()
        host = self.page("Host")
        host.join(SESSION, "Hope", "host")
        joined = self.peer(host)
        self.assertEqual(joined["configured"], joined["given"])
        first = self.check(joined["configured"], joined["you"], started)

        # A reload resumes the seat: the new peer takes the resume reply's credentials, even
        # when the devices open before that reply arrives (it is held here until they have).
        time.sleep(1.1)
        held = host.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_REPLIES_UNTIL_DEVICES})
        host.reload()
        host.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": held["identifier"]})
        host.wait(lambda: (host.driver.execute_script(PEER_CONFIGURATION)["given"] or [{}])[0].get("username") != joined["given"][0]["username"],
                  "fresh credentials from the resume reply")
        resumed = self.peer(host)
        self.assertEqual(resumed["configured"], resumed["given"])
        self.assertEqual(resumed["you"], joined["you"])
        self.assertGreater(self.check(resumed["configured"], resumed["you"], started), first)

        # Credentials about to expire: the next peer asks getIceServers first.
        time.sleep(1.1)
        fresh = host.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const connection = window.caucusConsole.connection;
            const soon = Math.floor(Date.now() / 1000) + 30;
            connection.iceServers = connection.iceServers.map((server) => ({...server, username: `${soon}:${server.username.split(":")[1]}`}));
            connection.currentIceServers().then(done, (error) => done(String(error)));
            """)
        self.assertGreater(self.check(fresh, resumed["you"], started), first)


class ConsoleWithoutTURNTests(ConsoleTestCase):
    def test_without_turn_the_peer_has_no_ice_servers(self):
        host = self.page("Host")
        host.join("Direct", "Hope", "host")
        host.wait(lambda: host.driver.execute_script(PEER_CONFIGURATION)["state"] == "connected", "the console's media peer, connected")
        configuration = host.driver.execute_script(PEER_CONFIGURATION)
        self.assertEqual(configuration["configured"], [])
        self.assertEqual(configuration["given"], [])


if __name__ == "__main__":
    unittest.main()
