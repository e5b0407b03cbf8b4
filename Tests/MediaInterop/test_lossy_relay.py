"""The lossy relay the media loss tests put between peers and `caucus serve`: an echo server on
127.0.0.1:P stands for the server, clients send to 127.0.0.2:P. Each client gets its own upstream
socket and only its own answers; drops follow the probability of their direction and the seed;
a blackout drops everything both ways until it ends; the counts add up to what was sent."""

import socket
import struct
import sys
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import WAIT_SECONDS  # noqa: E402  (the path is set just above)
from lossy_relay import LossyRelay, roomy  # noqa: E402

SERVER_HOST = "127.0.0.1"
ANNOUNCED_HOST = "127.0.0.2"


class EchoServer:
    """Sends every datagram back to where it came from, and keeps what it got from whom."""

    def __init__(self):
        self.sock = roomy(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        self.sock.bind((SERVER_HOST, 0))
        self.sock.settimeout(0.1)
        self.received = []  # (source address, datagram)
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @property
    def port(self):
        return self.sock.getsockname()[1]

    def run(self):
        while self.running:
            try:
                data, source = self.sock.recvfrom(2048)
            except socket.timeout:
                continue
            self.received.append((source, data))
            self.sock.sendto(data, source)

    def stop(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class Client:
    """Sends to the relay and reads its answers on a thread of its own, so none waits in a full
    socket buffer."""

    def __init__(self, port):
        self.sock = roomy(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        self.sock.bind((SERVER_HOST, 0))
        self.sock.settimeout(0.05)
        self.target = (ANNOUNCED_HOST, port)
        self.answers = []
        self.running = True
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while self.running:
            try:
                self.answers.append(self.sock.recvfrom(2048)[::-1])
            except socket.timeout:
                continue

    def send(self, payloads):
        for payload in payloads:
            self.sock.sendto(payload, self.target)
            # Paced a little, as media is: the relay's socket buffer is never what drops.
            time.sleep(0.0005)

    def collect(self, until):
        """Waits until `until()` holds (or the hang guard runs out)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while not until() and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


def binding_request(username):
    """A STUN binding request carrying USERNAME (RFC 8489), unsigned: the relay only reads it."""
    name = username.encode()
    attribute = struct.pack("!HH", 0x0006, len(name)) + name + b"\0" * (-len(name) % 4)
    return struct.pack("!HHI", 0x0001, len(attribute), 0x2112A442) + b"0123456789ab" + attribute


def payloads(tag, count):
    return [f"{tag}:{i}".encode() for i in range(count)]


class LossyRelayTests(unittest.TestCase):
    def setUp(self):
        self.server = EchoServer()
        self.relays = []
        self.clients = []

    def tearDown(self):
        for client in self.clients:
            client.close()
        for relay in self.relays:
            relay.stop()
        self.server.stop()

    def relay(self, **arguments):
        relay = LossyRelay((ANNOUNCED_HOST, self.server.port), (SERVER_HOST, self.server.port), **arguments).start()
        self.relays.append(relay)
        return relay

    def client(self):
        client = Client(self.server.port)
        self.clients.append(client)
        return client

    def named_clients(self):
        """Two clients, each named in a STUN check it sent (USERNAME "server:client"), as an ICE
        agent does: ann as "annfrag", ben as "benfrag"; their checks' echoes are their first answers."""
        ann, ben = self.client(), self.client()
        ann.send([binding_request("srv1:annfrag")])
        ben.send([binding_request("srv2:benfrag")])
        ann.collect(lambda: len(ann.answers) == 1)
        ben.collect(lambda: len(ben.answers) == 1)
        return ann, ben

    def test_each_client_has_its_own_upstream_and_gets_only_its_answers(self):
        relay = self.relay()
        ann, ben = self.client(), self.client()
        ann.send(payloads("ann", 50))
        ben.send(payloads("ben", 50))
        ann.collect(lambda: len(ann.answers) == 50)
        ben.collect(lambda: len(ben.answers) == 50)
        self.assertEqual([data for _, data in ann.answers], payloads("ann", 50))
        self.assertEqual([data for _, data in ben.answers], payloads("ben", 50))
        # Answers come from the address the clients sent to; the server saw two other sources.
        self.assertEqual({source for source, _ in ann.answers + ben.answers}, {(ANNOUNCED_HOST, self.server.port)})
        sources = {source for source, _ in self.server.received}
        self.assertEqual(len(sources), 2)
        self.assertTrue(sources.isdisjoint({ann.sock.getsockname(), ben.sock.getsockname()}))
        counts = relay.counts()
        self.assertEqual(counts["clients"], 2)
        self.assertEqual(counts["up"], {"forwarded": 100, "dropped": 0, "blackedOut": 0})
        self.assertEqual(counts["down"], {"forwarded": 100, "dropped": 0, "blackedOut": 0})

    def test_drops_follow_each_direction_and_the_counts_add_up(self):
        relay = self.relay(up=0.2, down=0.3, seed=7)
        ann = self.client()
        ann.send(payloads("ann", 1000))
        # Waits for every hop to settle: all 1000 through the relay's upstream, every one it
        # forwarded at the server, every answer through its downstream, every one it forwarded at
        # the client. Waiting on the answers alone can catch a datagram between relay and server.
        def settled():
            counts = relay.counts()
            return (counts["up"]["forwarded"] + counts["up"]["dropped"] == 1000
                    and counts["up"]["forwarded"] == len(self.server.received)
                    and counts["down"]["forwarded"] + counts["down"]["dropped"] == len(self.server.received)
                    and counts["down"]["forwarded"] == len(ann.answers))
        ann.collect(settled)
        counts = relay.counts()
        self.assertEqual(counts["up"]["forwarded"] + counts["up"]["dropped"], 1000)
        self.assertEqual(counts["up"]["forwarded"], len(self.server.received))
        self.assertEqual(counts["down"]["forwarded"] + counts["down"]["dropped"], len(self.server.received))
        self.assertEqual(counts["down"]["forwarded"], len(ann.answers))
        # Binomial: 200 ± 12.6 and 240 ± 12.7 (one standard deviation); these bounds are ± 5.
        self.assertTrue(137 <= counts["up"]["dropped"] <= 263, counts)
        self.assertTrue(176 <= counts["down"]["dropped"] <= 304, counts)

    def test_the_same_seed_drops_the_same_datagrams(self):
        kept = []
        for _ in range(2):
            relay = self.relay(up=0.5, seed=3)
            before = len(self.server.received)
            client = self.client()
            client.send(payloads("x", 200))
            # All 200 through the relay, and an answer for each one it forwarded.
            client.collect(lambda: relay.counts()["up"]["forwarded"] + relay.counts()["up"]["dropped"] == 200
                           and len(client.answers) == relay.counts()["up"]["forwarded"])
            kept.append([data for _, data in self.server.received[before:]])
            relay.stop()
            self.relays.remove(relay)
        self.assertEqual(kept[0], kept[1])
        self.assertLess(len(kept[0]), 200)

    def test_a_blackout_drops_everything_both_ways_until_it_ends(self):
        relay = self.relay()
        ann = self.client()
        ann.send(payloads("before", 10))
        ann.collect(lambda: len(ann.answers) == 10)

        relay.blackout(3600)
        ann.send(payloads("during", 20))
        ann.collect(lambda: relay.counts()["up"]["blackedOut"] == 20)
        self.assertEqual(len(ann.answers), 10)
        self.assertEqual(len(self.server.received), 10)

        # Answers the server sends during a blackout are dropped too.
        self.server.sock.sendto(b"late", self.server.received[0][0])
        ann.collect(lambda: relay.counts()["down"]["blackedOut"] == 1)
        self.assertEqual(len(ann.answers), 10)

        relay.blackout(0)  # over now
        ann.send(payloads("after", 10))
        ann.collect(lambda: len(ann.answers) == 20)
        self.assertEqual([data for _, data in ann.answers[10:]], payloads("after", 10))

        # A blackout ends by itself.
        relay.blackout(0.2)
        time.sleep(0.3)
        ann.send(payloads("later", 5))
        ann.collect(lambda: len(ann.answers) == 25)
        self.assertEqual(relay.counts()["up"], {"forwarded": 25, "dropped": 0, "blackedOut": 20})
        self.assertEqual(relay.counts()["down"], {"forwarded": 25, "dropped": 0, "blackedOut": 1})

    def test_a_capped_client_gets_what_its_link_carries_and_the_others_everything(self):
        relay = self.relay()
        ann, ben = self.named_clients()
        # 80 kbit/s: a 1,000-byte datagram every 100 ms; at most 250 ms in the queue.
        relay.cap("annfrag", 80_000, queue_seconds=0.25)
        started = time.monotonic()
        ann.send([b"a" * 1000 for _ in range(40)])
        ben.send([b"b" * 1000 for _ in range(40)])
        ben.collect(lambda: len(ben.answers) == 41)
        ann.collect(lambda: relay.counts()["down"].get("capped", 0) + len(ann.answers) - 1 == 40 and time.monotonic() - started > 1)
        self.assertEqual(len(ben.answers), 41, "the other client is not capped")
        arrived = len(ann.answers) - 1
        self.assertTrue(2 <= arrived <= 6, f"{arrived} of 40 in a 250 ms queue at 80 kbit/s")
        self.assertEqual(relay.counts()["down"]["capped"], 40 - arrived)
        relay.cap("annfrag", None)
        ann.send([b"c" * 1000 for _ in range(10)])
        ann.collect(lambda: len(ann.answers) == arrived + 11)
        self.assertEqual(len(ann.answers), arrived + 11, "the cap lifted")

    def test_a_targeted_drop_takes_the_next_packets_of_one_payload_type_towards_one_client(self):
        relay = self.relay()
        ann, ben = self.named_clients()

        def rtp(payload_type, number):
            return struct.pack("!BBHII", 0x80, payload_type, number, 0, 1) + b"media"

        relay.drop_next("annfrag", 96, 2)
        # To ann: 96, 111 (another type), an RTCP receiver report (201, read as 73), 96, 96, 96.
        sent = [rtp(96, 1), rtp(111, 2), struct.pack("!BBHI", 0x80, 201, 1, 1), rtp(96, 3), rtp(96, 4), rtp(96, 5)]
        ann.send(sent)
        ben.send([rtp(96, 1), rtp(96, 2)])
        ann.collect(lambda: len(ann.answers) == 5)
        ben.collect(lambda: len(ben.answers) == 3)
        self.assertEqual([data for _, data in ann.answers[1:]], [sent[1], sent[2], sent[4], sent[5]])
        self.assertEqual(len(ben.answers), 3, "the other client loses nothing")
        counts = relay.counts()
        self.assertEqual(counts["down"]["targeted"], 2)
        self.assertEqual(counts["down"]["forwarded"], len(ann.answers) + len(ben.answers))
        for bad in ((128, 1), (96, -1)):
            with self.assertRaises(ValueError):
                relay.drop_next("annfrag", *bad)

    def test_a_loss_is_a_probability(self):
        relay = self.relay()
        for bad in (-0.1, 1.5):
            with self.assertRaises(ValueError):
                relay.set_loss(up=bad, down=0)
        self.assertEqual(relay.loss, {"up": 0.0, "down": 0.0})


if __name__ == "__main__":
    unittest.main()
