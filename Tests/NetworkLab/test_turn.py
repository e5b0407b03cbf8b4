"""coturn as the lab runs it (turnserver.conf), from a home whose firewall lets through only TCP
to the TURN server, with aioice's TURN client (what aiortc uses): over TCP on 3478 and over TLS on
443 (the certificate verified against the test CA) it allocates a relayed address and relays
datagrams both ways to a public host, which sees them come from the relay; credentials past their
expiry, or signed with another secret, are refused, as is a TLS server the client does not trust;
and a relay allocated before its credentials expired is refreshed and used after (coturn checks
the expiry when a relay is allocated: what `caucus serve`'s credential lifetime rests on)."""

import asyncio
import socket
import ssl
import threading
import unittest
from pathlib import Path

from aioice import stun, turn

from lab_services import TURN_CONFIG, new_ca, open_lab_with_turn, remove_ca, turn_credentials
from netlab import in_namespace, skip_unless_possible

ECHO_PORT = 5000
WAIT = 5.0


class Receiver(asyncio.DatagramProtocol):
    def __init__(self):
        self.datagrams = asyncio.Queue()

    def datagram_received(self, data, addr):
        self.datagrams.put_nowait((data, addr))


@skip_unless_possible
class TurnTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        open_lab_with_turn(cls)
        cls.peer = cls.lab.public_host("peer")
        cls.home = cls.lab.home("turnonly", policy="tcp-only-to", allowed=[(cls.turn.address, 3478), (cls.turn.address, 443)])
        cls.echo = cls.peer.socket(socket.AF_INET, socket.SOCK_DGRAM)
        cls.echo.bind((cls.peer.address, ECHO_PORT))
        cls.echo_sources = []
        threading.Thread(target=cls.serve_echo, daemon=True).start()

    @classmethod
    def serve_echo(cls):
        while True:
            try:
                data, source = cls.echo.recvfrom(2048)
            except OSError:
                return
            cls.echo_sources.append(source)
            cls.echo.sendto(b"echo " + data, source)

    def allocate_and_relay(self, port, tls, username, password):
        """From the home's student: allocates on coturn, sends a datagram to the peer's echo
        through the relay and returns (relayed address, the answer, who it came from)."""

        async def exchange():
            transport, receiver = await asyncio.wait_for(turn.create_turn_endpoint(
                Receiver, server_addr=(self.turn.address, port), username=username, password=password, ssl=tls, transport="tcp"), WAIT)
            try:
                transport.sendto(b"hello", (self.peer.address, ECHO_PORT))
                data, source = await asyncio.wait_for(receiver.datagrams.get(), WAIT)
                return transport.get_extra_info("sockname"), data, source
            finally:
                transport.close()

        return in_namespace(self.home.student_namespace, lambda: asyncio.run(exchange()))

    def test_a_relay_allocated_before_its_credentials_expire_outlives_them(self):
        username, password = turn_credentials(self.turn.secret, "ada", lifetime=2)

        async def relay_after_expiry():
            transport, receiver = await asyncio.wait_for(turn.create_turn_endpoint(
                Receiver, server_addr=(self.turn.address, 3478), username=username, password=password, transport="tcp"), WAIT)
            try:
                await asyncio.sleep(3.5)
                # The client's periodic refresh, early: it keeps the relay past the expiry.
                refresh = stun.Message(message_method=stun.Method.REFRESH, message_class=stun.Class.REQUEST)
                refresh.attributes["LIFETIME"] = 600
                await transport._TurnTransport__inner_protocol.request_with_retry(refresh)
                # A new peer needs a new permission and channel, asked with the expired credentials too.
                transport.sendto(b"late", (self.peer.address, ECHO_PORT))
                return (await asyncio.wait_for(receiver.datagrams.get(), WAIT))[0]
            finally:
                transport.close()

        self.assertEqual(in_namespace(self.home.student_namespace, lambda: asyncio.run(relay_after_expiry())), b"echo late")
        with self.assertRaises(Exception) as refusal:
            self.allocate_and_relay(3478, None, username, password)
        self.assertIn("401", str(refusal.exception), "a new relay with the expired credentials")

    def trusted(self):
        return ssl.create_default_context(cafile=str(self.ca.path))

    def test_turn_over_tcp_and_over_tls_on_443_relays_both_ways(self):
        for port, tls in ((3478, None), (443, self.trusted())):
            with self.subTest(port=port):
                username, password = turn_credentials(self.turn.secret, "ada")
                relayed, answer, source = self.allocate_and_relay(port, tls, username, password)
                self.assertEqual(relayed[0], self.turn.address)
                self.assertEqual(answer, b"echo hello")
                self.assertEqual(source, (self.peer.address, ECHO_PORT))
                self.assertEqual(self.echo_sources[-1], tuple(relayed), "the peer sees the relay, not the student")

    def test_expired_or_forged_credentials_are_refused(self):
        expired, password = turn_credentials(self.turn.secret, "ada", lifetime=-60)
        forged_name, forged = turn_credentials("another secret", "ada")
        for what, username, credential in (("expired", expired, password), ("another secret", forged_name, forged)):
            with self.subTest(what):
                with self.assertRaises(Exception) as refusal:
                    self.allocate_and_relay(3478, None, username, credential)
                self.assertIn("401", str(refusal.exception))

    def test_tls_from_an_untrusted_authority_is_refused(self):
        username, password = turn_credentials(self.turn.secret, "ada")
        other_ca = new_ca("other-ca")
        self.addCleanup(remove_ca, other_ca)
        with self.assertRaises(ssl.SSLCertVerificationError):
            self.allocate_and_relay(443, ssl.create_default_context(cafile=str(other_ca.path)), username, password)


class QuotedConfigurationTests(unittest.TestCase):
    def test_the_configuration_in_the_docs_is_the_one_the_lab_runs(self):
        docs = (Path(__file__).resolve().parents[2] / "docs" / "network-lab.md").read_text()
        quoted = docs.split("```conf\n", 1)[1].split("```", 1)[0].splitlines()
        running = [line for line in TURN_CONFIG.read_text().splitlines() if line and not line.startswith("#")]
        self.assertEqual(quoted, running)


if __name__ == "__main__":
    unittest.main()
