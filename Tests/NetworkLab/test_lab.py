"""The lab itself (netlab.py), checked with plain sockets before any client trusts it: a public
host is reached at its own address; a student's datagrams reach it from its router's address
through a mapped port, which a rebinding changes; the UDP-blocking firewall lets TCP through and
no UDP; the TURN-only firewall lets through only its listed TCP destinations; a blackout and a
random loss drop what they should; and closing the lab leaves no namespace behind."""

import os
import socket
import time
import unittest

from netlab import NETNS_ETC, PORT_RANGES, Lab, lab_namespaces, skip_unless_possible

WAIT = 2.0


def port_in(range_text, port):
    low, high = map(int, range_text.split("-"))
    return low <= port <= high


class UDPEcho:
    """A UDP socket on a public host that answers each datagram with the address it came from."""

    def __init__(self, host, port=5000):
        self.socket = host.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((host.address, port))
        self.socket.settimeout(WAIT)
        self.address = (host.address, port)

    def receive(self):
        try:
            _, source = self.socket.recvfrom(2048)
            return source
        except socket.timeout:
            return None


@skip_unless_possible
class NetworkLabTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lab = Lab()
        cls.addClassCleanup(cls.lab.close)
        cls.server = cls.lab.public_host("server")
        cls.other = cls.lab.public_host("other")
        cls.open_home = cls.lab.home("open")
        cls.udp_blocked = cls.lab.home("noudp", policy="no-udp")
        cls.turn_only = cls.lab.home("turnonly", policy="tcp-only-to", allowed=[(cls.server.address, 443)])
        cls.echo = UDPEcho(cls.server)

    def send_udp(self, home, payload=b"hello"):
        client = home.student.socket(socket.AF_INET, socket.SOCK_DGRAM)
        client.bind(("0.0.0.0", 0))
        return client, lambda: client.sendto(payload, self.echo.address)

    def listen_tcp(self, host, port):
        listener = host.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host.address, port))
        listener.listen()
        return listener

    def tcp_reaches(self, home, host, port):
        listener = self.listen_tcp(host, port)
        try:
            connection = home.student.socket()
            connection.settimeout(WAIT)
            try:
                connection.connect((host.address, port))
                return True
            except (socket.timeout, OSError):
                return False
            finally:
                connection.close()
        finally:
            listener.close()

    def test_a_new_hosts_addresses_do_not_change_after_it_is_made(self):
        # A browser started at once must not see its network change under a page load (the
        # IPv6 link-local address finishing duplicate address detection did: ERR_NETWORK_CHANGED).
        host, home = self.lab.public_host("fresh"), self.lab.home("freshhome")
        def addresses():
            return [target.exec("ip", "-o", "addr", "show").stdout for target in (host, home.student)]
        made = addresses()
        time.sleep(3 * WAIT)
        self.assertEqual(addresses(), made)
        self.assertNotIn("inet6", "".join(made))

    def test_public_hosts_reach_each_other_at_their_own_addresses(self):
        self.assertNotEqual(self.server.address, "127.0.0.1")
        self.assertTrue(self.server.address.startswith("203.0.113."))
        listener = self.listen_tcp(self.server, 7000)
        try:
            connection = self.other.connect(self.server.address, 7000)
            accepted, source = listener.accept()
            self.assertEqual(source[0], self.other.address)
            connection.close()
            accepted.close()
        finally:
            listener.close()

    def test_a_students_udp_arrives_from_its_routers_mapped_port_and_a_rebinding_maps_it_anew(self):
        client, send = self.send_udp(self.open_home)
        try:
            send()
            first = self.echo.receive()
            self.assertEqual(first[0], self.open_home.wan_address, "the server sees the router's address, not 192.168.1.2")
            self.assertTrue(port_in(PORT_RANGES[0], first[1]), first)
            send()
            self.assertEqual(self.echo.receive(), first, "one flow, one mapping")
            self.assertIn(f"dport={first[1]}", self.open_home.mappings())

            self.open_home.rebind()
            send()
            second = self.echo.receive()
            self.assertEqual(second[0], self.open_home.wan_address)
            self.assertTrue(port_in(PORT_RANGES[1], second[1]), second)
            self.open_home.rebind()
            send()
            self.assertTrue(port_in(PORT_RANGES[0], self.echo.receive()[1]), "and back")
        finally:
            client.close()

    def test_the_udp_blocking_firewall_lets_tcp_through_and_no_udp(self):
        client, send = self.send_udp(self.udp_blocked)
        try:
            send()
            self.assertIsNone(self.echo.receive(), "a datagram passed the UDP-blocking firewall")
        finally:
            client.close()
        self.assertTrue(self.tcp_reaches(self.udp_blocked, self.server, 7001))

    def test_the_turn_only_firewall_lets_through_only_its_listed_destinations(self):
        self.assertTrue(self.tcp_reaches(self.turn_only, self.server, 443))
        self.assertFalse(self.tcp_reaches(self.turn_only, self.server, 7002), "an unlisted port")
        self.assertFalse(self.tcp_reaches(self.turn_only, self.other, 443), "an unlisted host")
        client, send = self.send_udp(self.turn_only)
        try:
            send()
            self.assertIsNone(self.echo.receive(), "a datagram passed the TURN-only firewall")
        finally:
            client.close()

    def test_a_blackout_drops_everything_until_cleared_and_a_loss_drops_about_its_share(self):
        client, send = self.send_udp(self.open_home)
        try:
            self.open_home.uplink.blackout()
            send()
            self.assertIsNone(self.echo.receive(), "a datagram crossed a blackout")
            self.open_home.uplink.clear()
            send()
            self.assertIsNotNone(self.echo.receive())

            self.open_home.uplink.impair(loss=0.5)
            self.echo.socket.settimeout(0.3)
            arrived = 0
            for _ in range(200):
                send()
            while self.echo.receive() is not None:
                arrived += 1
            self.assertTrue(60 <= arrived <= 140, f"{arrived} of 200 arrived through a 50 % loss")
        finally:
            self.open_home.uplink.clear()
            self.echo.socket.settimeout(WAIT)
            client.close()


@skip_unless_possible
class CleanupTests(unittest.TestCase):
    def test_closing_a_lab_leaves_no_namespace_and_ends_its_processes(self):
        before = set(lab_namespaces())
        lab = Lab()
        host = lab.public_host("sleeper")
        host.know({"sleeper.test": host.address})
        process = host.popen(["sleep", "60"])
        resolved = host.exec("getent", "hosts", "sleeper.test").stdout.split()
        self.assertEqual(resolved[:2], [host.address, "sleeper.test"], "the namespace's own hosts file")
        self.assertGreater(len(set(lab_namespaces()) - before), 0)
        lab.close()
        self.assertEqual(set(lab_namespaces()), before)
        self.assertIsNotNone(process.poll(), "the lab's process still runs")
        self.assertFalse(os.path.exists(os.path.join(NETNS_ETC, host.namespace)), "its hosts file is left")
        self.assertNotIn("sleeper.test", open("/etc/hosts").read())

    def test_a_failure_while_building_still_removes_what_was_made(self):
        before = set(lab_namespaces())
        with self.assertRaises(ValueError):
            with Lab() as lab:
                lab.public_host("made")
                lab.home("bad", policy="no-such-policy")
        self.assertEqual(set(lab_namespaces()), before)


if __name__ == "__main__":
    unittest.main()
