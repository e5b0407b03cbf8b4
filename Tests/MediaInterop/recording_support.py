"""What the recording tests share: aiortc publishers that only send (a tone and a colour, or
claps: a white frame and a tone burst at the same capture instant on a schedule of the test's
clock), the host's breakout steps, the HTTP control API with the development app's key, and
readers of what the server wrote (timelines, `ffprobe`, PyAV decoding of the WebM files)."""

import asyncio
import base64
import fractions
import json
import math
import pathlib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import av
import numpy
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from av import VideoFrame

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from caucus_server import WAIT_SECONDS  # noqa: E402  (the paths are set just above)
from media_peers import ColourTrack, Peer, ToneTrack, mono_frame  # noqa: E402

SAMPLE_RATE = 48000
AUDIO_PTIME = 0.02
CLAP_VIDEO_RATE = 20
CLAP_SIZE = (160, 120)
BURST_SECONDS = 0.1
BURST_HZ = 1000
BURST_GAIN = 16000


class ClapSchedule:
    """Claps every `period` seconds from `origin` (time.monotonic()), shared by every publisher of
    a test, so claps of one index were captured at the same instant of the test's clock."""

    def __init__(self, origin, period=2.0):
        self.origin = origin
        self.period = period

    def index_at(self, moment):
        return math.floor((moment - self.origin) / self.period)

    def instant(self, index):
        return self.origin + index * self.period


class BurstTrack(MediaStreamTrack):
    """Silence with a 1 kHz burst starting at every clap's instant, to the sample: sample n is
    captured at (and handed over at) the track's start + n / 48 kHz, 20 ms a frame."""

    kind = "audio"

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule
        self.started = None
        self.samples_sent = 0

    async def recv(self):
        count = int(SAMPLE_RATE * AUDIO_PTIME)
        if self.started is None:
            self.started = time.monotonic()
        first = self.started + self.samples_sent / SAMPLE_RATE
        wait = first - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        moments = first + numpy.arange(count) / SAMPLE_RATE
        since_clap = (moments - self.schedule.origin) % self.schedule.period
        after_origin = moments >= self.schedule.origin
        loud = after_origin & (since_clap < BURST_SECONDS)
        tone = numpy.sin(2 * numpy.pi * BURST_HZ * since_clap) * BURST_GAIN
        samples = numpy.where(loud, tone, 0).astype(numpy.int16)
        frame = mono_frame(samples, self.samples_sent)
        self.samples_sent += count
        return frame


class FlashTrack(MediaStreamTrack):
    """Black frames at `rate` a second on the schedule's grid (so a clap's instant is a frame's),
    the frame at each clap's instant white."""

    kind = "video"

    def __init__(self, schedule, size=CLAP_SIZE, rate=CLAP_VIDEO_RATE):
        super().__init__()
        self.schedule = schedule
        self.rate = rate
        self.black = numpy.zeros((size[1], size[0], 3), numpy.uint8)
        self.white = numpy.full((size[1], size[0], 3), 255, numpy.uint8)
        self.first = None
        self.frames_sent = 0

    async def recv(self):
        if self.first is None:
            self.first = math.ceil((time.monotonic() - self.schedule.origin) * self.rate)
        grid = self.first + self.frames_sent
        wait = self.schedule.origin + grid / self.rate - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        clap = grid >= 0 and grid % round(self.schedule.period * self.rate) == 0
        frame = VideoFrame.from_ndarray(self.white if clap else self.black, format="rgb24")
        frame.pts = self.frames_sent * 90000 // self.rate
        frame.time_base = fractions.Fraction(1, 90000)
        self.frames_sent += 1
        return frame


class Publisher(Peer):
    """A user who only sends: audio and video tracks of its own on one sendonly offer, no receive
    slots; then publishes both."""

    async def start_sending(self, audio=None, video=None, video_codec=None):
        """`video_codec` ("video/H264", say) makes the video offer that codec only."""
        self.pc = RTCPeerConnection(RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
        self.pc.addTransceiver(audio or ToneTrack(self.tone), direction="sendonly")
        transceiver = self.pc.addTransceiver(video or ColourTrack(self.colour, self.size, self.rate), direction="sendonly")
        if video_codec:
            codecs = RTCRtpSender.getCapabilities("video").codecs
            transceiver.setCodecPreferences([codec for codec in codecs if codec.mimeType.lower() == video_codec.lower()])
        await self.pc.setLocalDescription(await self.pc.createOffer())
        reply = await self.request("mediaOffer", sdp=self.pc.localDescription.sdp)
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=reply["sdp"], type="answer"))
        await self.request("publish", media=["audio", "video"])

    async def close_quietly(self):
        try:
            await asyncio.wait_for(self.close(), 5)
        except Exception:  # the server may be gone (killed): closing is best effort
            pass


async def join(server, session, name, role="participant", tone=440, colour=(128, 128, 128)):
    peer = Publisher(server, session, name, role, tone, colour, {})
    await peer.join()
    return peer


async def open_rooms(host, assignments):
    """Rooms named as `assignments` (room name -> [user ids]) opened and everyone moved there;
    returns room name -> room id."""
    await host.request("addToPreList", names=list(assignments))
    for name, users in assignments.items():
        await host.request("preAssign", users=users, name=name)
    await host.request("commit")
    await host.request("start", autoMove=True)
    snapshot = (await host.request("getSnapshot"))["snapshot"]
    return {room["name"]: room["id"] for room in snapshot["breakout"]["rooms"]}


async def wait_for(what, condition, seconds=WAIT_SECONDS):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


# The control API -------------------------------------------------------------------------------


def control(server, path, body=None):
    """The control API's answer to GET `path` (or POST `body`), with the development app's key."""
    app = json.loads((pathlib.Path(server.data) / "development-app.json").read_text())
    request = urllib.request.Request(server.base + path, data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST")
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{app['key']}:{app['secret']}".encode()).decode())
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
        return json.load(response)


def session_id(server, name):
    return next(listed["id"] for listed in control(server, "/v1/sessions")["sessions"] if listed["name"] == name)


# What the server wrote -------------------------------------------------------------------------


def session_folder(server, session):
    return pathlib.Path(server.data) / "recordings" / str(session)


def timeline(folder):
    return [json.loads(line) for line in (pathlib.Path(folder) / "timeline.jsonl").read_text().splitlines() if line]


def files_started(folder, user):
    """The kinds of `user`'s files the timeline has started so far, read while it is written (a
    last line without its newline is still being written, and left out)."""
    path = pathlib.Path(folder) / "timeline.jsonl"
    if not path.exists():
        return set()
    lines = [json.loads(line) for line in path.read_text().split("\n")[:-1] if line]
    return {line["kind"] for line in lines if line["event"] == "fileStarted" and line.get("user") == user}


def stopped(folder):
    path = pathlib.Path(folder) / "timeline.jsonl"
    return path.exists() and any(line["event"] == "recordingStopped" for line in timeline(folder))


def probe(path):
    """ffprobe's (codec name, duration in seconds) of a file's one stream; fails when it cannot read it."""
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "json", str(path)],
                            capture_output=True, text=True, timeout=WAIT_SECONDS)
    if result.returncode != 0:
        raise AssertionError(f"ffprobe cannot read {path}: {result.stderr}")
    found = json.loads(result.stdout)
    return found["streams"][0]["codec_name"], float(found["format"]["duration"])


def white_frames(path):
    """The times (ms from the file's 0) of the first white frame of each run of white frames."""
    moments, previous = [], False
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            white = frame.to_ndarray(format="gray").mean() > 128
            if white and not previous:
                moments.append(float(frame.pts * stream.time_base * 1000))
            previous = white
    return moments


def burst_onsets(path, threshold=BURST_GAIN / 4, quiet_seconds=0.5):
    """The times (ms from the file's 0) where a burst begins: the first sample past `threshold`
    after at least `quiet_seconds` below it. Each decoded frame is placed by its own timestamp,
    so a gap in the file is not mistaken for audio."""
    onsets, last_loud = [], -math.inf
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        for frame in container.decode(stream):
            samples = frame.to_ndarray().astype(numpy.float64)
            if frame.format.name.startswith("flt") or frame.format.name.startswith("dbl"):
                samples *= 32768  # FFmpeg's Opus decoder gives floats in [-1, 1]
            channels = len(frame.layout.channels)
            mono = numpy.abs(samples[0] if frame.format.is_planar else samples.reshape(-1)[::channels])
            start = float(frame.pts * stream.time_base)
            for index in numpy.nonzero(mono > threshold)[0]:
                moment = start + index / frame.sample_rate
                if moment - last_loud >= quiet_seconds:
                    onsets.append(moment * 1000)
                last_loud = moment
    return onsets
