"""aiortc peers for the media interop tests: each joins a real `caucus serve` session over the
documented WebSocket protocol, publishes a tone of its own and a colour of its own (at a frame
size of its own), and recognises the tones and colours it receives on each of the transceivers it
negotiated once, keeping what it measured of each (the tone's frequency, the frame's size)."""

import asyncio
import fractions
import functools
import json
import sys
import time
from collections import deque
from pathlib import Path

import numpy
import websockets
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from av import AudioFrame, VideoFrame

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import WAIT_SECONDS  # noqa: E402  (the path is set just above)

SAMPLE_RATE = 48000
AUDIO_PTIME = 0.02
VIDEO_RATE = 10
VIDEO_SIZE = (96, 64)
# Received audio is read over the last 100 ms: a 10 Hz resolution, well under the tones' spacing.
TONE_WINDOW = 4800
TONE_TOLERANCE_HZ = 20
COLOUR_TOLERANCE = 70


def mono_frame(samples, pts):
    """An audio frame of 16-bit mono `samples` at 48 kHz, its first sample at `pts` (in samples)."""
    frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
    frame.sample_rate = SAMPLE_RATE
    frame.pts = pts
    frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
    return frame


class ToneTrack(MediaStreamTrack):
    """A sine of `frequency` Hz, paced in real time, 20 ms per frame, of amplitude `gain` (which a
    test may change at any time: 0 is silence, which aiortc's RFC 6464 level reports as such)."""

    kind = "audio"

    def __init__(self, frequency, gain=12000):
        super().__init__()
        self.frequency = frequency
        self.gain = gain
        self.samples_sent = 0
        self.started = None

    async def recv(self):
        count = int(SAMPLE_RATE * AUDIO_PTIME)
        if self.started is None:
            self.started = time.monotonic()
        wait = self.started + self.samples_sent / SAMPLE_RATE - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        t = (numpy.arange(count) + self.samples_sent) / SAMPLE_RATE
        samples = (numpy.sin(2 * numpy.pi * self.frequency * t) * self.gain).astype(numpy.int16)
        frame = mono_frame(samples, self.samples_sent)
        self.samples_sent += count
        return frame


class ColourTrack(MediaStreamTrack):
    """A frame of one colour and `size` (width, height), `rate` times a second."""

    kind = "video"

    def __init__(self, colour, size=VIDEO_SIZE, rate=VIDEO_RATE):
        super().__init__()
        self.rate = rate
        self.sent_at = deque(maxlen=3000)  # when each frame was handed to the encoder (monotonic)
        self.image = numpy.zeros((size[1], size[0], 3), numpy.uint8)
        self.image[:, :] = colour
        self.frames_sent = 0
        self.started = None

    async def recv(self):
        if self.started is None:
            self.started = time.monotonic()
        wait = self.started + self.frames_sent / self.rate - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        frame = VideoFrame.from_ndarray(self.image, format="rgb24")
        frame.pts = self.frames_sent * 90000 // self.rate
        frame.time_base = fractions.Fraction(1, 90000)
        self.frames_sent += 1
        self.sent_at.append(time.monotonic())
        return frame


@functools.lru_cache(maxsize=8)
def hann_window(length):
    """Made once per length: each receive slot reads its tone every 20 ms, and building the
    window each time was a twentieth of a four-peer test process's time."""
    return numpy.hanning(length)


def dominant_frequency(samples):
    spectrum = numpy.abs(numpy.fft.rfft(samples * hann_window(len(samples))))
    peak = int(numpy.argmax(spectrum[1:])) + 1
    if spectrum[peak] < 1e5:
        return None  # silence (or comfort noise)
    # The peak between bins, from a parabola through the peak bin and its neighbours.
    offset = 0.0
    if peak + 1 < len(spectrum):
        left, centre, right = spectrum[peak - 1], spectrum[peak], spectrum[peak + 1]
        curvature = left - 2 * centre + right
        if curvature != 0:
            offset = 0.5 * (left - right) / curvature
    return (peak + offset) * SAMPLE_RATE / len(samples)


class Reception:
    """What one receiving transceiver recognised, with when and what was measured: the tone's
    frequency (Hz) for audio, the frame's (width, height) for video."""

    def __init__(self, mid, kind):
        self.mid = mid
        self.kind = kind
        self.seen = deque(maxlen=2000)

    def note(self, label, measure=None):
        self.seen.append((time.monotonic(), label, measure))

    def since(self, moment):
        return {label for at, label, _ in self.seen if at >= moment}

    def measures_since(self, moment):
        """label -> what was measured of it, in order, since `moment`."""
        measures = {}
        for at, label, measure in self.seen:
            if at >= moment and label is not None:
                measures.setdefault(label, []).append(measure)
        return measures


class Peer:
    """A user of a session: its WebSocket (requests matched to replies by `id`, events kept in
    order) and, once `start_media` ran, its one RTCPeerConnection."""

    def __init__(self, server, session, name, role, tone, colour, palette, size=VIDEO_SIZE, rate=VIDEO_RATE, ice_servers=None):
        """`server`: the CaucusServer to join (its WebSocket, and its development app's tokens).
        `ice_servers`: the RTCConfiguration's (RTCIceServer list; None: aiortc's default)."""
        self.server = server
        self.base = server.base
        self.session = session
        self.name = name
        self.role = role
        self.tone = tone
        self.colour = colour
        self.size = size
        self.rate = rate
        self.palette = palette  # name -> (tone, colour) of every publisher of the test
        self.ice_servers = ice_servers
        self.events = []
        self.replies = {}
        self.next_id = 1
        self.offers_sent = 0
        self.receptions = {}
        self.tasks = []
        self.pc = None
        self.slot_map = []  # the server's latest slot map frame: which user fills which mid
        self.slot_maps = []  # every slot map frame: (when it arrived, its slots, its activeSpeakers or None)

    # Signalling ---------------------------------------------------------------------------

    async def join(self):
        self.ws = await websockets.connect(self.base.replace("http", "ws") + "/ws", max_size=None)
        self.tasks.append(asyncio.create_task(self.read()))
        reply = await self.request("join", session=self.session, userName=self.name, token=self.server.token(self.session, self.role, self.name), protocol=1)
        self.user = reply["user"]
        return reply

    async def read(self):
        async for text in self.ws:
            frame = json.loads(text)
            if "re" in frame and frame["re"] in self.replies:
                self.replies.pop(frame["re"]).set_result(frame)
            elif "event" in frame:
                self.events.append(frame)
            elif "media" in frame:
                self.slot_map = frame["media"]["slots"]
                self.slot_maps.append((time.monotonic(), self.slot_map, frame["media"].get("activeSpeakers")))

    async def request(self, op, **arguments):
        request_id = self.next_id
        self.next_id += 1
        reply = asyncio.get_running_loop().create_future()
        self.replies[request_id] = reply
        await self.ws.send(json.dumps({"id": request_id, "op": op, **arguments}))
        frame = await asyncio.wait_for(reply, WAIT_SECONDS)
        if "error" in frame:
            raise AssertionError(f"{self.name}: {op} refused: {frame['error']}")
        return frame.get("result", {})

    # Media --------------------------------------------------------------------------------

    async def start_media(self, audio_slots, video_slots, publish=True, recognise_tones=True, send=True):
        """One offer for the whole test: our tone and colour sent, then receive-only
        transceivers for the server's slots; then, with `publish`, says it publishes both (a
        peer made again after a resume does not: what a user publishes outlives its peers).
        Without `recognise_tones`, received audio is decoded and dropped (reading the tone of
        many audio slots costs more CPU than a small machine has beside the video). Without
        `send`, the offer has the receive slots only (a user who only watches)."""
        # max-bundle: aiortc's default (balanced) puts each later transceiver on the transport of
        # the first one of its kind, and when the answer bundles everything on the first section
        # it moves only those first transceivers, so later video ones would never start.
        self.pc = RTCPeerConnection(RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE, iceServers=self.ice_servers))
        if send:
            self.tone_track = ToneTrack(self.tone)
            self.pc.addTransceiver(self.tone_track, direction="sendonly")
            self.video_track = ColourTrack(self.colour, self.size, self.rate)
            self.pc.addTransceiver(self.video_track, direction="sendonly")
        for _ in range(audio_slots):
            self.pc.addTransceiver("audio", direction="recvonly")
        for _ in range(video_slots):
            self.pc.addTransceiver("video", direction="recvonly")

        @self.pc.on("track")
        def on_track(track):
            transceiver = next(t for t in self.pc.getTransceivers() if t.receiver.track is track)
            reception = Reception(transceiver.mid, track.kind)
            self.receptions[transceiver.mid] = reception
            if track.kind == "video":
                consume = self.watch
            else:
                consume = self.hear if recognise_tones else self.drain
            self.tasks.append(asyncio.create_task(consume(track, reception)))

        await self.pc.setLocalDescription(await self.pc.createOffer())
        self.offers_sent += 1
        reply = await self.request("mediaOffer", sdp=self.pc.localDescription.sdp)
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=reply["sdp"], type="answer"))
        self.mids = [t.mid for t in self.pc.getTransceivers()]
        if publish and send:
            await self.request("publish", media=["audio", "video"])

    async def hear(self, track, reception):
        buffer = numpy.zeros(0, numpy.float64)
        while True:
            frame = await track.recv()
            samples = frame.to_ndarray().astype(numpy.float64)
            channels = len(frame.layout.channels)
            buffer = numpy.concatenate([buffer, samples.reshape(-1)[::channels]])[-TONE_WINDOW:]
            if len(buffer) < TONE_WINDOW:
                continue
            frequency = dominant_frequency(buffer)
            reception.note(self.who_sounds(frequency), frequency)

    async def drain(self, track, reception):
        while True:
            await track.recv()

    async def watch(self, track, reception):
        while True:
            frame = await track.recv()
            mean = frame.to_ndarray(format="rgb24").reshape(-1, 3).mean(axis=0)
            reception.note(self.who_looks(mean), (frame.width, frame.height))

    def who_sounds(self, frequency):
        if frequency is None:
            return None
        for name, (tone, _) in self.palette.items():
            if abs(tone - frequency) <= TONE_TOLERANCE_HZ:
                return name
        return f"unknown tone {frequency:.0f} Hz"

    def who_looks(self, mean):
        for name, (_, colour) in self.palette.items():
            if numpy.abs(mean - numpy.array(colour)).max() <= COLOUR_TOLERANCE:
                return name
        return f"unknown colour {tuple(int(c) for c in mean)}"

    def heard(self, since):
        return self.recognised("audio", since)

    def seen(self, since):
        return self.recognised("video", since)

    def recognised(self, kind, since):
        labels = set()
        for reception in self.receptions.values():
            if reception.kind == kind:
                labels |= reception.since(since)
        labels.discard(None)
        return labels

    def measures(self, kind, since):
        """label -> what was measured of it since `since`, over all receive slots of `kind`."""
        measures = {}
        for reception in self.receptions.values():
            if reception.kind == kind:
                for label, values in reception.measures_since(since).items():
                    measures.setdefault(label, []).extend(values)
        return measures

    async def packets_received(self):
        """mid -> RTP packets its receiver got (inbound-rtp), whether or not they decoded."""
        counts = {}
        for transceiver in self.pc.getTransceivers():
            if transceiver.direction == "recvonly":
                stats = await transceiver.receiver.getStats()
                counts[transceiver.mid] = sum(s.packetsReceived for s in stats.values() if s.type == "inbound-rtp")
        return counts

    def slot_users(self):
        """Who fills our slots, by kind, as the server's latest slot map says."""
        users = {"audio": set(), "video": set()}
        for slot in self.slot_map:
            if slot.get("user") is not None:
                users.setdefault(slot["kind"], set()).add(slot["user"])
        return users

    async def close(self):
        for task in self.tasks:
            task.cancel()
        if self.pc is not None:
            await self.pc.close()
        await self.ws.close()


class PeersOfOneSession:
    """Mix in before unittest.IsolatedAsyncioTestCase: one `caucus serve` for the class, and for
    each test one aiortc peer per name of `palette` (name -> (tone, colour); the first is the
    host) in session `session`, all joined, then each offering `audio_slots` + `video_slots`
    receive slots, in `self.peers`."""

    palette = {}
    session = "media"
    audio_slots = 3
    video_slots = 3

    @classmethod
    def setUpClass(cls):
        from caucus_server import CaucusServer  # the path is set at the top of this module

        cls.server = CaucusServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    async def asyncSetUp(self):
        self.peers = {}
        for index, (name, (tone, colour)) in enumerate(self.palette.items()):
            peer = Peer(self.server, self.session, name, "host" if index == 0 else "participant", tone, colour, self.palette)
            await peer.join()
            self.peers[name] = peer
        for peer in self.peers.values():
            await peer.start_media(self.audio_slots, self.video_slots)

    async def asyncTearDown(self):
        for peer in self.peers.values():
            await peer.close()

