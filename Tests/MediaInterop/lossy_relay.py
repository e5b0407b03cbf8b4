"""A lossy UDP relay between WebRTC peers and `caucus serve`, for the media loss tests.

The server binds one address and announces another on the same port
(`caucus serve --media-bind-address 127.0.0.1 --media-address 127.0.0.2 --media-port P`); the
relay listens on the announced one (127.0.0.2:P) and, for each client source address, opens its
own upstream socket to the bound one (127.0.0.1:P). So the server sees one address per client
(the relay's upstream socket), the client sees answers from the address it was given, and every
datagram both ways passes here, where it may be dropped:

- at random, with a probability per direction (`up`: client → server, `down`: server → client),
  drawn from a seeded generator per direction;
- all of them, both ways, during a blackout (`blackout(seconds)`).

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

import random
import selectors
import socket
import threading
import time

MAX_DATAGRAM = 65535


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
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
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

    def upstream_for(self, client):
        sock = self.upstreams.get(client)
        if sock is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((self.upstream_address[0], 0))
            sock.connect(self.upstream_address)
            sock.setblocking(False)
            self.upstreams[client] = sock
            self.clients[sock.fileno()] = client
            self.selector.register(sock, selectors.EVENT_READ)
        return sock

    def run(self):
        while not self.stopping:
            for key, _ in self.selector.select():
                sock = key.fileobj
                if sock is self.wake_read:
                    return
                try:
                    if sock is self.listener:
                        data, client = sock.recvfrom(MAX_DATAGRAM)
                        if self.passes("up"):
                            self.upstream_for(client).send(data)
                    else:
                        data = sock.recv(MAX_DATAGRAM)
                        if self.passes("down"):
                            self.listener.sendto(data, self.clients[sock.fileno()])
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
