"""Prints an offer from aiortc with one audio and one video transceiver (sendrecv).

Regenerate the fixture with: python3 aiortc_offer.py > aiortc-offer.sdp
"""
import asyncio

from aiortc import RTCPeerConnection


async def main() -> None:
    pc = RTCPeerConnection()
    pc.addTransceiver("audio")
    pc.addTransceiver("video")
    await pc.setLocalDescription(await pc.createOffer())
    print(pc.localDescription.sdp, end="")
    await pc.close()


asyncio.run(main())
