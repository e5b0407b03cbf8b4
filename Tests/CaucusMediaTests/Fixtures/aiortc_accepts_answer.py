"""Offers audio + video from aiortc, then reads an answer and applies it.

Protocol on stdio: prints the offer then a line "--end--"; reads the answer up to a line
"--end--"; prints one JSON line: {"accepted": true, "media": [...]} or
{"accepted": false, "error": "..."}.
"""
import asyncio
import json
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription


async def main() -> None:
    pc = RTCPeerConnection()
    pc.addTransceiver("audio")
    pc.addTransceiver("video")
    await pc.setLocalDescription(await pc.createOffer())
    sys.stdout.write(pc.localDescription.sdp + "\n--end--\n")
    sys.stdout.flush()
    lines = []
    for line in sys.stdin:
        if line.strip() == "--end--":
            break
        lines.append(line.rstrip("\r\n"))
    answer = "\r\n".join(lines) + "\r\n"
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        media = [
            {
                "mid": t.mid,
                "direction": t.currentDirection,
                "codecs": [c.mimeType for c in t._codecs],
            }
            for t in pc.getTransceivers()
        ]
        print(json.dumps({"accepted": True, "media": media, "remoteIceLite": pc.remoteDescription.sdp.count("a=ice-lite") > 0}))
    except Exception as error:  # the test reports what aiortc refused
        print(json.dumps({"accepted": False, "error": f"{type(error).__name__}: {error}"}))
    await pc.close()


asyncio.run(main())
