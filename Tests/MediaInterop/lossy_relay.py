"""A lossy UDP relay between WebRTC peers and `caucus serve`, for the media loss tests.

The server binds one address and announces another on the same port
(`caucus serve --media-bind-address 127.0.0.1 --media-address 127.0.0.2 --media-port P`); the
relay listens on the announced one (127.0.0.2:P) and, for each client source address, opens its
own upstream socket to the bound one (127.0.0.1:P). So the server sees one address per client
(the relay's upstream socket), the client sees answers from the address it was given, and every
datagram both ways passes here, where it may be dropped:

- at random, with a probability per direction (`up`: client → server, `down`: server → client),
  drawn from a seeded generator per direction;
- all of them, both ways, during a blackout (`blackout(seconds)`);
- towards one client, the next few RTP packets of one payload type (`drop_next(ufrag,
  payload_type, count)`): a lone loss, exactly where a test wants it;
- towards one client, by a bandwidth cap (`cap(ufrag, bits_per_second)`): a queue that drains at
  that rate and drops what would wait longer than `queue_seconds` in it, as a slow access link
  does. The client is known by its ICE username fragment, read from the STUN checks it sends.

It counts what it forwarded and dropped, per direction. It runs on a thread of its own, so a test
whose event loop carries aiortc peers, or that blocks on a browser, does not slow it.

    relay = LossyRelay(("127.0.0.2", port), ("127.0.0.1", port), up=0.05, down=0.05, seed=1)
    relay.start()
    ...
    relay.set_loss(up=0.1, down=0.1)
    relay.blackout(1.0)
    relay.counts()  # {"up": {"forwarded": …, "dropped": …, "blackedOut": …}, "down": {…}, "clients": 2}
    relay.stop()
"""

import heapq
import random
import selectors
import socket
import struct
import threading
import time

MAX_DATAGRAM = 65535
# What a socket of the relay (or a test's end) may hold unread: a busy machine can leave a
# Python thread off the processor for tens of milliseconds, and the default (about 200 KB, some
# 270 small datagrams) then drops what only the loss settings should.
ROOMY_BUFFER = 4 * 1024 * 1024


def roomy(sock):
    """Gives `sock` a receive buffer of ROOMY_BUFFER (past the system's cap when run as root)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), ROOMY_BUFFER)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, ROOMY_BUFFER)
    return sock


class LossyRelay:
    def __init__(self, listen, upstream, up=0.0, down=0.0, seed=0):
        """`listen`: (host, port) the clients send to; `upstream`: (host, port) of the server.
        `up` and `down`: the drop probability of each direction (0 to 1)."""
        self.listen_address = listen
        self.upstream_address = upstream
        self.random = {"up": random.Random(f"{seed}-up"), "down": random.Random(f"{seed}-down")}
        self.lock = threading.Lock()
        self.loss = {}
        self.set_loss(up, down)
        self.blackout_until = 0.0
        self.tally = {direction: {"forwarded": 0, "dropped": 0, "blackedOut": 0} for direction in ("up", "down")}
        self.listener = roomy(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        self.listener.bind(listen)
        self.listener.setblocking(False)
        self.upstreams = {}  # client address -> its own socket towards the server
        self.clients = {}  # upstream socket's file number -> client address
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        # Closing this pair's write end wakes the loop to stop.
        self.wake_read, self.wake_write = socket.socketpair()
        self.selector.register(self.wake_read, selectors.EVENT_READ)
        self.thread = threading.Thread(target=self.run, name="lossy-relay", daemon=True)
        self.stopping = False
        self.ufrags = {}  # client address -> its ICE username fragment
        self.caps = {}  # ufrag -> (bits per second, longest wait in the queue)
        self.targeted = {}  # (ufrag, payload type) -> how many more of those to drop
        self.queue_free_at = {}  # client address -> when its capped link is free again
        self.departures = []  # heap of (time, order, datagram, client address)
        self.order = 0

    @property
    def port(self):
        return self.listener.getsockname()[1]

    def set_loss(self, up, down):
        for value in (up, down):
            if not 0 <= value <= 1:
                raise ValueError(f"a loss probability is between 0 and 1, not {value}")
        with self.lock:
            self.loss = {"up": up, "down": down}

    def blackout(self, seconds):
        """Drops every datagram, both ways, for `seconds` from now."""
        with self.lock:
            self.blackout_until = time.monotonic() + seconds

    def drop_next(self, ufrag, payload_type, count=1):
        """Drops the next `count` RTP packets of `payload_type` towards the client whose ICE
        username fragment is `ufrag` (counted as `targeted` in the down direction)."""
        if not 0 <= payload_type <= 127 or count < 0:
            raise ValueError(f"a payload type is 0 to 127 and a count at least 0, not {payload_type} and {count}")
        with self.lock:
            self.targeted[(ufrag, payload_type)] = count

    def is_targeted(self, data, client):
        """Whether `data` towards `client` is one of the packets `drop_next` asked to drop
        (then one fewer is left to drop). SRTP leaves the RTP header in the clear; RTCP's
        packet types (200 to 206) read as 72 to 78 there, which no media payload type is."""
        if len(data) < 12 or data[0] >> 6 != 2:
            return False
        with self.lock:
            key = (self.ufrags.get(client), data[1] & 0x7F)
            if self.targeted.get(key, 0) == 0:
                return False
            self.targeted[key] -= 1
            self.tally["down"]["forwarded"] -= 1
            self.tally["down"]["targeted"] = self.tally["down"].get("targeted", 0) + 1
            return True

    def cap(self, ufrag, bits_per_second, queue_seconds=0.25):
        """Caps what reaches the client whose ICE username fragment is `ufrag`; None lifts it."""
        with self.lock:
            if bits_per_second is None:
                self.caps.pop(ufrag, None)
            else:
                self.caps[ufrag] = (bits_per_second, queue_seconds)

    def counts(self):
        with self.lock:
            counts = {direction: dict(tally) for direction, tally in self.tally.items()}
        counts["clients"] = len(self.upstreams)
        return counts

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping = True
        self.wake_write.close()
        self.thread.join(timeout=5)
        self.selector.close()
        for sock in [self.listener, self.wake_read, *self.upstreams.values()]:
            sock.close()

    # The loop ------------------------------------------------------------------------------

    def passes(self, direction):
        """Whether the next datagram of `direction` goes on, counted either way."""
        with self.lock:
            tally = self.tally[direction]
            if time.monotonic() < self.blackout_until:
                tally["blackedOut"] += 1
                return False
            if self.random[direction].random() < self.loss[direction]:
                tally["dropped"] += 1
                return False
            tally["forwarded"] += 1
            return True

    @staticmethod
    def client_ufrag(data):
        """The client's fragment of a STUN request's USERNAME (`server:client`), if it is one."""
        if len(data) < 20 or data[0] >> 6 != 0 or data[4:8] != b"\x21\x12\xa4\x42":
            return None
        offset = 20
        while offset + 4 <= len(data):
            kind, length = struct.unpack_from("!HH", data, offset)
            if kind == 0x0006:
                username = data[offset + 4:offset + 4 + length].decode("utf-8", "replace")
                return username.split(":", 1)[1] if ":" in username else None
            offset += 4 + (length + 3) // 4 * 4
        return None

    def send_down(self, data, client):
        """Towards `client`: at once, or through its capped link's queue."""
        with self.lock:
            cap = self.caps.get(self.ufrags.get(client))
        if cap is None:
            self.listener.sendto(data, client)
            return
        rate, longest_wait = cap
        now = time.monotonic()
        leaves = max(now, self.queue_free_at.get(client, 0.0)) + len(data) * 8 / rate
        if leaves - now > longest_wait:
            with self.lock:
                self.tally["down"]["forwarded"] -= 1
                self.tally["down"]["capped"] = self.tally["down"].get("capped", 0) + 1
            return
        self.queue_free_at[client] = leaves
        self.order += 1
        heapq.heappush(self.departures, (leaves, self.order, data, client))

    def send_due(self):
        """Sends what the capped links let out by now; returns the wait until the next, if any."""
        now = time.monotonic()
        while self.departures and self.departures[0][0] <= now:
            _, _, data, client = heapq.heappop(self.departures)
            try:
                self.listener.sendto(data, client)
            except BlockingIOError:
                continue
        return self.departures[0][0] - now if self.departures else None

    def upstream_for(self, client):
        sock = self.upstreams.get(client)
        if sock is None:
            sock = roomy(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
            sock.bind((self.upstream_address[0], 0))
            sock.connect(self.upstream_address)
            sock.setblocking(False)
            self.upstreams[client] = sock
            self.clients[sock.fileno()] = client
            self.selector.register(sock, selectors.EVENT_READ)
        return sock

    def run(self):
        while not self.stopping:
            for key, _ in self.selector.select(self.send_due()):
                sock = key.fileobj
                if sock is self.wake_read:
                    return
                try:
                    if sock is self.listener:
                        data, client = sock.recvfrom(MAX_DATAGRAM)
                        ufrag = self.client_ufrag(data)
                        if ufrag is not None:
                            with self.lock:
                                self.ufrags[client] = ufrag
                        if self.passes("up"):
                            self.upstream_for(client).send(data)
                    else:
                        data = sock.recv(MAX_DATAGRAM)
                        client = self.clients[sock.fileno()]
                        if self.passes("down") and not self.is_targeted(data, client):
                            self.send_down(data, client)
                except (BlockingIOError, ConnectionRefusedError):
                    # Nothing to read after all, or the server's port answered ICMP unreachable
                    # (it is not up yet, or is gone): like a lost datagram.
                    continue


BIND_HOST = "127.0.0.1"
ANNOUNCED_HOST = "127.0.0.2"


class BehindLossyRelay:
    """Mix in before chromium_page.ServerAndBrowser: `caucus serve` binds BIND_HOST and announces
    ANNOUNCED_HOST on the same port, where `cls.relay` (seeded with `relay_seed`) listens, so
    every peer's media passes it; no loss until a test sets some."""

    server_arguments = ("--media-address", ANNOUNCED_HOST, "--media-bind-address", BIND_HOST)
    relay_seed = 0

    @classmethod
    def before_browser(cls):
        host, port = cls.server.media_endpoint()
        assert host == ANNOUNCED_HOST, host
        cls.relay = LossyRelay((ANNOUNCED_HOST, port), (BIND_HOST, port), seed=cls.relay_seed).start()

    @classmethod
    def after_browser(cls):
        cls.relay.stop()
