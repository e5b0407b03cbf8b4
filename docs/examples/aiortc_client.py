"""A Caucus media client in Python with aiortc: joins a session, sends one WebRTC offer with
a microphone-like tone and room for one audio and one video stream, publishes its audio, and
prints what the server says: the answer's connection state and the slot maps.

    pip install aiortc websockets
    python3 aiortc_client.py ws://127.0.0.1:8080/ws Demo Ada "$(caucus token --session Demo --role host)"

It prints one JSON object per line: {"joined": user}, {"slots": [...]} for each slot map,
{"state": "connected"} once ICE and DTLS are up, {"published": ["audio"]}, then exits after a
few seconds of media. See docs/webrtc-clients.md for what the offer must hold and why.
"""
import asyncio
import fractions
import json
import math
import sys

from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from av import AudioFrame
from websockets.asyncio.client import connect


class Tone(MediaStreamTrack):
    """20 ms frames of a 440 Hz tone, paced in real time, as a microphone delivers them."""

    kind = "audio"

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0
        self.start = None

    async def recv(self) -> AudioFrame:
        loop = asyncio.get_running_loop()
        self.start = self.start or loop.time()
        wait = self.start + self.sent / 48000 - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        samples = [int(8000 * math.sin(2 * math.pi * 440 * (self.sent + n) / 48000)) for n in range(960)]
        frame = AudioFrame(format="s16", layout="mono", samples=960)
        frame.planes[0].update(b"".join(s.to_bytes(2, "little", signed=True) for s in samples))
        frame.pts, frame.sample_rate, frame.time_base = self.sent, 48000, fractions.Fraction(1, 48000)
        self.sent += 960
        return frame


def say(value: dict) -> None:
    print(json.dumps(value), flush=True)


class Connection:
    """Requests with ids; replies matched by `re`; slot maps printed as they come."""

    def __init__(self, socket) -> None:
        self.socket, self.next_id, self.waiting = socket, 1, {}

    async def request(self, op: str, **arguments) -> dict:
        request_id, self.next_id = self.next_id, self.next_id + 1
        reply = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = reply
        await self.socket.send(json.dumps({"id": request_id, "op": op, **arguments}))
        frame = await reply
        if "error" in frame:
            raise RuntimeError(f"{op} refused: {frame['error']}")
        return frame["result"]

    async def read(self) -> None:
        async for text in self.socket:
            frame = json.loads(text)
            if "re" in frame and frame["re"] in self.waiting:
                self.waiting.pop(frame["re"]).set_result(frame)
            elif "media" in frame:
                say({"slots": frame["media"]["slots"]})


async def main(url: str, session: str, name: str, token: str, seconds: float) -> None:
    async with connect(url) as socket:
        caucus = Connection(socket)
        reader = asyncio.create_task(caucus.read())
        joined = await caucus.request("join", session=session, userName=name, token=token)
        say({"joined": joined["user"]})

        # One transport for every section, which is all the server answers; aiortc's default
        # ("balanced") would prepare one per kind of media and count on the answer to bundle.
        pc = RTCPeerConnection(RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
        pc.addTransceiver(Tone(), direction="sendrecv")  # sends our audio, receives one audio slot
        pc.addTransceiver("video", direction="recvonly")  # one video slot
        connected = asyncio.Event()
        pc.on("connectionstatechange", lambda: pc.connectionState == "connected" and connected.set())
        # aiortc gathers its candidates before it returns the offer: no trickle ICE needed.
        await pc.setLocalDescription(await pc.createOffer())
        answer = await caucus.request("mediaOffer", sdp=pc.localDescription.sdp)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
        await asyncio.wait_for(connected.wait(), 30)
        say({"state": pc.connectionState})

        # What a user sends is forwarded once it says so.
        await caucus.request("publish", media=["audio"])
        say({"published": ["audio"]})
        await asyncio.sleep(seconds)
        await caucus.request("leave")
        await pc.close()
        reader.cancel()


if __name__ == "__main__":
    url, session, name, token = sys.argv[1:5]
    asyncio.run(main(url, session, name, token, float(sys.argv[5]) if len(sys.argv) > 5 else 3))
