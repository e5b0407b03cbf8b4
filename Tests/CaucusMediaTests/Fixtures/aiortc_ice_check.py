"""Offers audio from aiortc, applies the answer it reads, and reports ICE's outcome.

Protocol on stdio as in aiortc_accepts_answer.py; then waits until aiortc's ICE transport is
"completed" or "failed" (at most 30 s) and prints {"ice": "<state>"}. DTLS is not answered
by the test, so the peer connection as a whole does not connect: only ICE is judged.
"""
import asyncio
import json
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription


async def main() -> None:
    pc = RTCPeerConnection()
    pc.addTransceiver("audio")
    await pc.setLocalDescription(await pc.createOffer())
    sys.stdout.write(pc.localDescription.sdp + "\n--end--\n")
    sys.stdout.flush()
    lines = []
    for line in sys.stdin:
        if line.strip() == "--end--":
            break
        lines.append(line.rstrip("\r\n"))
    done = asyncio.Event()

    @pc.on("iceconnectionstatechange")
    def changed() -> None:
        if pc.iceConnectionState in ("completed", "failed"):
            done.set()

    await pc.setRemoteDescription(RTCSessionDescription(sdp="\r\n".join(lines) + "\r\n", type="answer"))
    try:
        await asyncio.wait_for(done.wait(), 30)
    except asyncio.TimeoutError:
        pass
    print(json.dumps({"ice": pc.iceConnectionState}), flush=True)
    await pc.close()


asyncio.run(main())
