"""A browser on a network that lets through nothing but TCP to port 443 (a TURN server's TLS port
and the server's HTTPS port) gets its media through TURN over TLS, with the credentials the server
handed it (docs/turn.md; docs/network-lab.md):

- the server (`caucus serve`, HTTPS and WSS on 443 at its own address) runs with `--turn-url` and
  `--turn-secret-file`, the secret shared with the lab's coturn (turnserver.conf, `use-auth-secret`);
- Tess, Chromium on the web console, sits behind a firewall that passes only TCP to coturn's 443
  (TLS) and to the server's 443: no UDP anywhere, no TCP to the media port or to coturn's 3478,
  though the server names both TURN URLs;
- Uma, aiortc behind an ordinary NAT, relays by the TURN servers of her own join reply if she must.

Each hears and sees the other (a tone and a colour each, recognised per receive slot); Tess's
selected candidate pair is a relayed one over TLS, from coturn to the server's UDP media
candidate; and
coturn's log shows it allocated that relay for Tess's username, `<expiry>:<session>.<user>`:
the server's credentials, checked by coturn against its own secret. The browser verifies the TURN
server's certificate as it does a web site's (the lab's CA is in its NSS database): from a coturn
whose certificate another CA issued, it gathers no relay at all."""

import sys
import time
import unittest

from lab_clients import AiortcStudent, ChromiumStudent, open_class, recognised
from lab_services import SERVER_PORT, TurnServer, lab_server, new_ca, open_lab_with_turn, port_of, remove_ca, turn_credentials
from netlab import skip_unless_possible

SESSION = "Relayed"
CONVERGE_SECONDS = 40
RECENT_SECONDS = 2.0
STABLE_SECONDS = 2.0
STUDENTS = {
    "Tess": {"tone": 520, "colour": [220, 200, 40], "size": [160, 120]},
    "Uma": {"tone": 780, "colour": [40, 80, 220], "size": [128, 96]},
}
PALETTE = {name: [student["tone"], student["colour"]] for name, student in STUDENTS.items()}
# The relay candidates a page gathers from `iceServers` alone (no server, no media), with the
# errors it met, once gathering completes (or after 10 s).
GATHER_RELAYS = """(async (iceServers) => {
  const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy: "relay" });
  pc.createDataChannel("probe");
  const relays = [], errors = [];
  pc.onicecandidateerror = (event) => errors.push(`${event.url}: ${event.errorCode} ${event.errorText}`);
  const gathered = new Promise((resolve) => {
    pc.onicecandidate = (event) => { if (!event.candidate) resolve(); else if (event.candidate.type === "relay") relays.push(event.candidate.address); };
    setTimeout(resolve, 10000);
  });
  await pc.setLocalDescription(await pc.createOffer());
  await gathered;
  pc.close();
  return { relays, errors };
})(args[0])"""


@skip_unless_possible
class ConsoleOverTURNTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        open_lab_with_turn(cls)
        cls.server_host = cls.lab.public_host("server")
        # TLS on 443 first (what a school's firewall lets through), then TCP on 3478.
        cls.turn_urls = [f"turns:{cls.turn.address}:443?transport=tcp", f"turn:{cls.turn.address}:3478?transport=tcp"]
        cls.server = lab_server(cls.server_host, ca=cls.ca, arguments=cls.turn.server_flags(cls.turn_urls))
        cls.addClassCleanup(cls.server.stop)
        # A coturn like the lab's, but with a certificate from a CA nobody here trusts.
        cls.other_ca = new_ca("other-ca")
        cls.addClassCleanup(remove_ca, cls.other_ca)
        cls.untrusted_turn = TurnServer(cls.lab.public_host("untrusted-turn"), cls.other_ca)
        cls.addClassCleanup(cls.untrusted_turn.stop)
        cls.only_443 = cls.lab.home("only443", policy="tcp-only-to", allowed=[
            (cls.turn.address, 443), (cls.untrusted_turn.address, 443), (cls.server_host.address, port_of(cls.server.base))])
        cls.open_home = cls.lab.home("open")

    def setUp(self):
        self.students = {}

    def tearDown(self):
        for student in self.students.values():
            student.close()

    def received(self, since):
        """name -> (heard, seen, problems) since `since` (`lab_clients.recognised`)."""
        return {name: recognised(name, student.report(since), self.names) for name, student in self.students.items()}

    def test_a_browser_allowed_only_tcp_to_port_443_gets_media_both_ways_through_turn_over_tls(self):
        base = self.server.base
        self.assertEqual(base, f"https://{self.server_host.address}:{SERVER_PORT}")
        # Uma first: she opens the class by its host link, so the participant link lets Tess in.
        invites, host_token = open_class(self.server_host, base, SESSION, ca_file=self.ca.path)
        uma = AiortcStudent(self.open_home, self.server, SESSION, "Uma", STUDENTS["Uma"]["tone"], STUDENTS["Uma"]["colour"],
                            STUDENTS["Uma"]["size"], PALETTE, ca_file=self.ca.path, ice_servers_from_join=True, token=host_token)
        self.students["Uma"] = uma
        self.assertEqual([server["urls"] for server in uma.given_ice_servers], [self.turn_urls])
        tess = ChromiumStudent(self.only_443, STUDENTS["Tess"]["tone"], STUDENTS["Tess"]["colour"], STUDENTS["Tess"]["size"], ca_file=self.ca.path)
        self.students["Tess"] = tess
        tess.join_console(f"{base}/console/?session={SESSION}&invite={invites['participantInvite']}", "Tess")
        self.assertEqual(tess.secure_context(), {"secure": True, "mediaDevices": True, "protocol": "https:"})
        tess.observe({name: {"tone": tone, "colour": colour} for name, (tone, colour) in PALETTE.items()})
        tess_user = tess.script("return window.caucusConsole.model.you;")
        self.names = {tess_user: "Tess", uma.user: "Uma"}

        # Each hears and sees the other, then keeps to it.
        expected = {"Tess": {"Uma"}, "Uma": {"Tess"}}
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            now = self.received(time.time() - RECENT_SECONDS)
            if all(now[name][0] == now[name][1] == expected[name] for name in expected):
                break
            if time.monotonic() > deadline:
                self.fail(f"expected {expected}, received (heard, seen, problems) {now}; Tess's path {tess.path()}")
            time.sleep(0.5)
        stable_from = time.time()
        time.sleep(STABLE_SECONDS)
        for name, (heard, seen, problems) in self.received(stable_from).items():
            self.assertEqual((heard, seen, problems), (expected[name], expected[name], []), name)

        # Tess's media went by the relay over TLS: from coturn to the server's UDP candidate.
        path = tess.path()
        self.assertEqual((path["localType"], path["remote"].split(":")[0], path["remoteTransport"]), ("relay", self.server_host.address, "udp"), path)
        self.assertEqual((path["relayProtocol"], path["url"]), ("tls", self.turn_urls[0]), path)
        username = tess.script("return window.caucusConsole.connection.iceServers[0].username;")
        self.assertTrue(username.endswith(f".{tess_user}"), username)
        allocated = self.turn.allocations(username)
        self.assertTrue(allocated, f"coturn allocated nothing for {username}:\n{self.turn.output()[-3000:]}")
        # Chromium verified coturn's certificate: another CA's gets no relay.
        given = tess.script("return window.caucusConsole.connection.iceServers;")
        trusted = tess.promise(GATHER_RELAYS, [{**server, "urls": server["urls"][:1]} for server in given])
        probe, password = turn_credentials(self.untrusted_turn.secret, "probe")
        untrusted = tess.promise(GATHER_RELAYS, [{"urls": [f"turns:{self.untrusted_turn.address}:443?transport=tcp"], "username": probe, "credential": password}])
        self.assertEqual(trusted["relays"], [self.turn.address], trusted)
        self.assertEqual(untrusted["relays"], [], untrusted)
        # The connection reached that coturn: the handshake is what failed.
        reached = f"local {self.untrusted_turn.address}:443, remote {self.only_443.wan_address}:"
        self.assertTrue(any(reached in line for line in self.untrusted_turn.output().splitlines()), self.untrusted_turn.output()[-2000:])
        self.assertFalse(self.untrusted_turn.allocations(probe), "an allocation over TLS the browser should have refused")
        print(f"\nTess (Chromium, only TCP to port 443) relayed over {path['relayProtocol']} by {path['url']} as {username}"
              f" ({len(allocated)} coturn log lines); from a coturn it does not trust: {untrusted}; Uma's path {uma.path()}", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
