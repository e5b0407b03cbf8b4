"""An aiortc peer for the media signalling tests, driven on stdio by a Swift test.

1. Prints {"offer": sdp}: an offer with one sendonly audio track, a 440 Hz tone.
2. Reads {"answer": sdp} (the server's, from `mediaOffer`) and applies it.
3. Prints {"state": s} once the peer connection is "connected", "failed" or "closed"
   (at most 30 s; otherwise its state then). While connected, the tone keeps flowing.
4. Reads a line "await-end" and prints {"state": s} once the connection is no longer
   "connected" (at most 60 s: consent ends after 30 s even if no close_notify arrives).
Exits after that, or when stdin closes.
"""
import asyncio
import fractions
import json
import math
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from av import AudioFrame


class Tone(MediaStreamTrack):
    """20 ms frames of a sine tone, paced in real time, as a microphone would deliver them."""

    kind = "audio"

    def __init__(self, frequency: float) -> None:
        super().__init__()
        self.rate = 48000
        self.samples = 960
        self.sent = 0
        self.start = None
        period = [int(8000 * math.sin(2 * math.pi * frequency * n / self.rate)) for n in range(self.rate)]
        self.wave = b"".join(v.to_bytes(2, "little", signed=True) for v in period)

    async def recv(self) -> AudioFrame:
        loop = asyncio.get_running_loop()
        if self.start is None:
            self.start = loop.time()
        wait = self.start + self.sent / self.rate - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        frame = AudioFrame(format="s16", layout="mono", samples=self.samples)
        offset = (self.sent % self.rate) * 2
        chunk = (self.wave + self.wave)[offset : offset + self.samples * 2]
        frame.planes[0].update(chunk)
        frame.pts = self.sent
        frame.sample_rate = self.rate
        frame.time_base = fractions.Fraction(1, self.rate)
        self.sent += self.samples
        return frame


def say(value: dict) -> None:
    print(json.dumps(value), flush=True)


async def read_line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def wait_for_state(pc: RTCPeerConnection, done, seconds: float) -> str:
    changed = asyncio.Event()
    pc.on("connectionstatechange", changed.set)
    try:
        async with asyncio.timeout(seconds):
            while not done(pc.connectionState):
                changed.clear()
                await changed.wait()
    except TimeoutError:
        pass
    return pc.connectionState


async def main() -> None:
    pc = RTCPeerConnection()
    pc.addTransceiver(Tone(440), direction="sendonly")
    await pc.setLocalDescription(await pc.createOffer())
    say({"offer": pc.localDescription.sdp})
    answer = json.loads(await read_line())["answer"]
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    say({"state": await wait_for_state(pc, lambda s: s in ("connected", "failed", "closed"), 30)})
    line = await read_line()
    if line.strip() == "await-end":
        say({"state": await wait_for_state(pc, lambda s: s != "connected", 60)})
    await pc.close()


asyncio.run(main())
