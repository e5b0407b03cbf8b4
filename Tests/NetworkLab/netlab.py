"""A network lab of Linux network namespaces for tests that need real networks: a bridge as "the
internet" (in a namespace of its own), public hosts on it with addresses of their own, and homes:
a student's namespace behind a NAT router namespace (nftables masquerade) whose firewall lets
through everything, everything but UDP, or only a list of TCP destinations.

Nothing is created in the root namespace: every interface is made inside the lab's namespaces,
and every nftables table lives in a router's namespace, so deleting the namespaces removes all
of it. Names carry the test process's ID, so a lab left behind by a killed run is recognised and
removed by the next one (`sweep`). Needs root (CAP_NET_ADMIN); `skip_unless_possible` skips a
test class with the reason otherwise.

Impairments (`Link.impair`, `Link.blackout`) use `tc netem` where the kernel has it; without it
(CONFIG_NET_SCH_NETEM unset) random loss and blackouts fall back to nftables (`numgen random`),
and a delay cannot be made: asking for one skips the test, saying so."""

import ipaddress
import itertools
import os
import re
import signal
import socket
import subprocess
import unittest

from namespaces import (  # noqa: F401  (NETNS_ETC, in_namespace, skip_unless_possible: for the tests)
    COMMAND_SECONDS, NETNS_ETC, PREFIX, delete_namespace, in_namespace, lab_namespaces, run, skip_unless_possible, sweep)

INTERNET = ipaddress.ip_network("203.0.113.0/24")  # TEST-NET-3 (RFC 5737): never a real host
HOME_LAN = ipaddress.ip_network("192.168.1.0/24")  # every home uses the same private range
# The masquerade's source ports, before and after a rebinding: disjoint, so a new mapping
# always has a new port.
PORT_RANGES = ("20000-29999", "40000-49999")

_counter = itertools.count(1)


class Link:
    """One end of a veth pair (`device` in `namespace`): what leaves through it can be impaired."""

    netem_available = None  # probed once per process

    def __init__(self, lab, namespace, device):
        self.lab = lab
        self.namespace = namespace
        self.device = device
        self.nft_table = f"impair_{device}"

    def impair(self, loss=0.0, delay_ms=0, jitter_ms=0):
        """What leaves through this end is lost at random (`loss`, 0…1) and delayed. Replaces any
        earlier impairment of this end."""
        self.clear()
        if self.has_netem():
            arguments = []
            if delay_ms:
                arguments += ["delay", f"{delay_ms}ms"] + ([f"{jitter_ms}ms"] if jitter_ms else [])
            if loss:
                arguments += ["loss", f"{loss * 100:.3f}%"]
            if arguments:
                self.lab.ip_netns_exec(self.namespace, "tc", "qdisc", "replace", "dev", self.device, "root", "netem", *arguments)
            return
        if delay_ms or jitter_ms:
            raise unittest.SkipTest("this kernel has no tc netem (CONFIG_NET_SCH_NETEM): delay cannot be made")
        if loss:
            self.drop(f"numgen random mod 10000 < {round(loss * 10000)}")

    def blackout(self):
        """Nothing leaves through this end until `clear`."""
        self.clear()
        self.drop("")

    def drop(self, condition):
        script = (f"table inet {self.nft_table} {{\n chain out {{\n type filter hook postrouting priority 300;\n"
                  f'oifname "{self.device}" {condition} drop\n }}\n}}\n')
        self.lab.ip_netns_exec(self.namespace, "nft", "-f", "-", input=script)

    def clear(self):
        if self.has_netem():
            self.lab.ip_netns_exec(self.namespace, "tc", "qdisc", "del", "dev", self.device, "root", check=False)
        self.lab.ip_netns_exec(self.namespace, "nft", "delete", "table", "inet", self.nft_table, check=False)

    def has_netem(self):
        if Link.netem_available is None:
            probe = self.lab.ip_netns_exec(self.namespace, "tc", "qdisc", "add", "dev", self.device, "root", "netem", "delay", "1ms", check=False)
            Link.netem_available = probe.returncode == 0
            if Link.netem_available:
                self.lab.ip_netns_exec(self.namespace, "tc", "qdisc", "del", "dev", self.device, "root", check=False)
        return Link.netem_available


class Host:
    """A namespace with one address: a public host on the internet, or a student in a home."""

    def __init__(self, lab, namespace, address, link):
        self.lab = lab
        self.namespace = namespace
        self.address = str(address)
        self.link = link  # its own end of the cable: what it sends leaves here

    def popen(self, argv, **options):
        """Starts a program in this host's namespace (`ip netns exec`); the lab ends it on close."""
        return self.lab.popen(self.namespace, argv, **options)

    def socket(self, family=socket.AF_INET, kind=socket.SOCK_STREAM):
        """A socket of this host's namespace, for this process to use."""
        return in_namespace(self.namespace, lambda: socket.socket(family, kind))

    def connect(self, address, port, timeout=COMMAND_SECONDS):
        """A TCP connection from this host to `address`:`port`."""
        connection = self.socket()
        connection.settimeout(timeout)
        try:
            connection.connect((address, port))
        except BaseException:
            connection.close()
            raise
        return connection

    def exec(self, *argv, check=True, input=None):
        return self.lab.ip_netns_exec(self.namespace, *argv, check=check, input=input)

    def know(self, names):
        """Programs run in this host's namespace resolve `names` (name -> address) through its own
        hosts file (/etc/netns/<namespace>/hosts, removed with the namespace)."""
        folder = os.path.join(NETNS_ETC, self.namespace)
        os.makedirs(folder, exist_ok=True)
        lines = ["127.0.0.1 localhost", "::1 localhost"] + [f"{address} {name}" for name, address in names.items()]
        with open(os.path.join(folder, "hosts"), "w") as hosts:
            hosts.write("\n".join(lines) + "\n")


class Home:
    """A student behind a NAT router. `policy`: "open" (any traffic), "no-udp" (TCP only) or
    "tcp-only-to" with `allowed` [(address, port), …], the only TCP destinations let through."""

    def __init__(self, lab, name, wan_address, policy, allowed):
        self.lab = lab
        self.name = name
        self.policy = policy
        self.router_namespace = lab.namespace(f"{name}-nat")
        self.student_namespace = lab.namespace(name)
        self.wan_address = str(wan_address)
        self.range_index = 0
        router = self.router_namespace
        self.wan = lab.plug(router, "wan0", wan_address)
        lab.ip("-n", router, "link", "add", "lan0", "type", "veth", "peer", "name", "eth0", "netns", self.student_namespace)
        gateway, student = HOME_LAN[1], HOME_LAN[2]
        lab.ip("-n", router, "addr", "add", f"{gateway}/{HOME_LAN.prefixlen}", "dev", "lan0")
        lab.ip("-n", router, "link", "set", "lan0", "up")
        lab.ip("-n", self.student_namespace, "addr", "add", f"{student}/{HOME_LAN.prefixlen}", "dev", "eth0")
        lab.ip("-n", self.student_namespace, "link", "set", "eth0", "up")
        lab.ip("-n", self.student_namespace, "route", "add", "default", "via", str(gateway))
        lab.ip_netns_exec(router, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        self.lab.ip_netns_exec(router, "nft", "-f", "-", input=self.ruleset(policy, allowed or []))
        self.student = Host(lab, self.student_namespace, student, Link(lab, self.student_namespace, "eth0"))
        # What the internet sends the student leaves the router here; what the student sends, at `wan`.
        self.downlink = Link(lab, router, "lan0")
        self.uplink = self.wan

    def ruleset(self, policy, allowed):
        if policy == "open":
            forward = ""
        elif policy == "no-udp":
            forward = 'iifname "lan0" meta l4proto udp drop;'
        elif policy == "tcp-only-to":
            opened = " ".join(f"iifname \"lan0\" ip daddr {address} tcp dport {port} accept;" for address, port in allowed)
            forward = f'ct state established,related accept; {opened} iifname "lan0" drop;'
        else:
            raise ValueError(f"unknown home policy {policy!r}")
        return f"""
        table ip lab_nat {{
          chain postrouting {{ type nat hook postrouting priority srcnat;
            oifname "wan0" meta l4proto {{ tcp, udp }} masquerade to :{PORT_RANGES[0]};
            oifname "wan0" masquerade; }}
        }}
        table inet lab_firewall {{
          chain forward {{ type filter hook forward priority filter; {forward} }}
        }}
        """

    def rebind(self, protocols=("udp",)):
        """The NAT forgets its mappings of `protocols` and maps those flows anew, from other ports,
        as a NAT whose UDP mapping expired or a carrier's NAT does mid-call: the masquerade's port
        range switches and those connection-tracking entries are deleted. With "tcp" too (a
        router's restart), open TCP connections break: their next segment leaves from a new port."""
        self.range_index = 1 - self.range_index
        handle = self.masquerade_handle()
        self.lab.ip_netns_exec(self.router_namespace, "nft", "replace", "rule", "ip", "lab_nat", "postrouting", "handle", str(handle),
                               "oifname", "wan0", "meta", "l4proto", "{", "tcp,", "udp", "}", "masquerade", "to", f":{PORT_RANGES[self.range_index]}")
        for protocol in protocols:
            self.lab.ip_netns_exec(self.router_namespace, "conntrack", "-D", "-p", protocol, check=False)

    def masquerade_handle(self):
        listing = self.lab.ip_netns_exec(self.router_namespace, "nft", "-a", "list", "chain", "ip", "lab_nat", "postrouting").stdout
        return int(re.search(r"masquerade to :\d+-\d+ # handle (\d+)", listing).group(1))

    def mapped_ports(self, protocol, destination):
        """The router's public ports of the student's `protocol` flows to `destination` (an address)."""
        ports = set()
        for line in self.mappings().splitlines():
            fields = line.split()
            sources = [field for field in fields if field.startswith("src=")]
            destinations = [field for field in fields if field.startswith("dst=")]
            # The student's own flows: original direction from the student to `destination` (not
            # the server's datagrams to a forgotten port, which conntrack lists as well).
            if fields and fields[0] == protocol and sources[:1] == [f"src={self.student.address}"] and destinations[:1] == [f"dst={destination}"]:
                ports.add(int([field for field in fields if field.startswith("dport=")][-1].split("=")[1]))
        return ports

    def mappings(self):
        """The router's connection-tracking table, as `conntrack -L` prints it."""
        return self.lab.ip_netns_exec(self.router_namespace, "conntrack", "-L", check=False).stdout


class Lab:
    """One lab: its internet, hosts and homes; `close` removes all of it. Use as a context
    manager, or call `close` in a finally / addClassCleanup."""

    def __init__(self):
        sweep()
        self.tag = f"{PREFIX}-{os.getpid()}-{next(_counter)}"
        self.namespaces = []
        self.processes = []
        self.next_host = itertools.count(10)
        self.internet = self.namespace("internet")
        try:
            self.ip("-n", self.internet, "link", "add", "inet0", "type", "bridge")
            self.ip("-n", self.internet, "link", "set", "inet0", "up")
            # The bridge only switches: no address, no routing in the internet's namespace.
        except Exception:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Plumbing --------------------------------------------------------------------------------

    def ip(self, *arguments):
        return run("ip", *arguments)

    def ip_netns_exec(self, namespace, *argv, check=True, input=None):
        return run("ip", "netns", "exec", namespace, *argv, check=check, input=input)

    def namespace(self, name):
        namespace = f"{self.tag}-{name}"
        run("ip", "netns", "add", namespace)
        self.namespaces.append(namespace)
        # The lab is IPv4 only. With IPv6 on, every interface gains a link-local address that
        # turns from tentative to valid a second or two after it comes up (duplicate address
        # detection); Chromium reads that as the network changing and fails a page load under
        # way with ERR_NETWORK_CHANGED. Off before any interface exists: no address ever changes.
        self.ip_netns_exec(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
        self.ip("-n", namespace, "link", "set", "lo", "up")
        return namespace

    def plug(self, namespace, device, address):
        """A cable from `namespace` (`device`, with `address` on the internet) to the bridge."""
        port = f"p{len(self.namespaces)}-{next(_counter)}"
        self.ip("-n", namespace, "link", "add", device, "type", "veth", "peer", "name", port, "netns", self.internet)
        self.ip("-n", self.internet, "link", "set", port, "master", "inet0")
        self.ip("-n", self.internet, "link", "set", port, "up")
        self.ip("-n", namespace, "addr", "add", f"{address}/{INTERNET.prefixlen}", "dev", device)
        self.ip("-n", namespace, "link", "set", device, "up")
        return Link(self, namespace, device)

    def next_address(self):
        return INTERNET[next(self.next_host)]

    # What tests make -------------------------------------------------------------------------

    def public_host(self, name):
        """A host on the internet with an address of its own (a server, a TURN server, a teacher)."""
        namespace = self.namespace(name)
        address = self.next_address()
        return Host(self, namespace, address, self.plug(namespace, "eth0", address))

    def home(self, name, policy="open", allowed=None):
        """A student behind a NAT router of its own (see `Home`)."""
        return Home(self, name, self.next_address(), policy, allowed)

    def popen(self, namespace, argv, **options):
        process = subprocess.Popen(["ip", "netns", "exec", namespace, *argv], start_new_session=True, **options)
        self.processes.append(process)
        return process

    def close(self):
        """Ends the lab's processes and deletes its namespaces; raises if any is left."""
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for namespace in reversed(self.namespaces):
            delete_namespace(namespace)
        left = [namespace for namespace in lab_namespaces() if namespace.startswith(self.tag + "-")]
        self.namespaces = []
        if left:
            raise RuntimeError(f"namespaces left behind: {left}")
