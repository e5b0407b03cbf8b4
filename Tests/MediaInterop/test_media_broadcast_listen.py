"""Broadcast voice and listen-in with aiortc peers nobody here wrote: each publishes a tone and a
colour of its own. The host's voice broadcast is heard in every room and in a muted main
session, and nothing else crosses; a listen-in brings a room's voices and pictures to the
listener alone, and the listener's voice never reaches the room."""

import asyncio
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from media_peers import PeersOfOneSession  # noqa: E402  (the path is set just above)
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

CONVERGE_SECONDS = 25
RECENT_SECONDS = 1.0
STABLE_SECONDS = 1.5

PALETTE = {
    "Hana": (440, (220, 40, 40)),
    "Ann": (620, (40, 200, 40)),
    "Ben": (820, (40, 40, 220)),
    "Cy": (1020, (230, 220, 40)),
    "Dee": (1240, (200, 40, 200)),
}


class BroadcastVoiceAndListenInTests(PeersOfOneSession, AsyncioTestCase):
    palette = PALETTE
    session = "media-broadcast"

    async def expect(self, where, heard, seen):
        """Each peer comes to hear exactly `heard[name]` and see exactly `seen[name]`, then receives
        nothing else for a while; the slot maps say the same."""

        def received(name, since):
            return self.peers[name].heard(since), self.peers[name].seen(since)

        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            recent = time.monotonic() - RECENT_SECONDS
            now = {name: received(name, recent) for name in PALETTE}
            if all(now[name] == (heard[name], seen[name]) for name in PALETTE):
                break
            if time.monotonic() > deadline:
                self.fail(f"{where}: expected heard {heard} and seen {seen}, received (heard, seen) {now}")
            await asyncio.sleep(0.2)
        stable_from = time.monotonic()
        await asyncio.sleep(STABLE_SECONDS)
        ids = {name: peer.user for name, peer in self.peers.items()}
        for name in PALETTE:
            slot_users = self.peers[name].slot_users()
            self.assertEqual(slot_users["audio"], {ids[other] for other in heard[name]}, f"{where}: {name}'s audio slot map")
            self.assertEqual(slot_users["video"], {ids[other] for other in seen[name]}, f"{where}: {name}'s video slot map")
            self.assertEqual(received(name, stable_from), (heard[name], seen[name]), f"{where}: {name}")

    async def test_broadcast_is_heard_everywhere_and_listen_in_by_the_listener_alone(self):
        host, users = self.peers["Hana"], {name: peer.user for name, peer in self.peers.items()}
        # Ann and Ben in Red, Cy in Blue; Hana and Dee stay in the main session, muted.
        await host.request("addToPreList", names=["Red", "Blue"])
        await host.request("preAssign", users=[users["Ann"], users["Ben"]], name="Red")
        await host.request("preAssign", users=[users["Cy"]], name="Blue")
        await host.request("commit")
        await host.request("start", autoMove=True)
        await host.request("muteParent", audio=True, video=False)
        snapshot = (await host.request("getSnapshot"))["snapshot"]
        rooms = {room["name"]: room["id"] for room in snapshot["breakout"]["rooms"]}
        in_rooms_seen = {"Hana": {"Dee"}, "Dee": {"Hana"}, "Ann": {"Ben"}, "Ben": {"Ann"}, "Cy": set()}
        in_rooms_heard = {"Hana": set(), "Dee": set(), "Ann": {"Ben"}, "Ben": {"Ann"}, "Cy": set()}
        await self.expect("in rooms, the main session muted", in_rooms_heard, in_rooms_seen)

        await host.request("startVoiceBroadcast")
        broadcast_heard = {name: heard | ({"Hana"} if name != "Hana" else set()) for name, heard in in_rooms_heard.items()}
        await self.expect("while Hana broadcasts", broadcast_heard, in_rooms_seen)
        for name, peer in self.peers.items():
            told = [f["event"] for f in peer.events if f["event"]["type"] == "voiceBroadcast"]
            self.assertEqual(told, [{"type": "voiceBroadcast", "user": users["Hana"], "active": True}], name)

        await host.request("stopVoiceBroadcast")
        await self.expect("after the broadcast", in_rooms_heard, in_rooms_seen)

        # Hana listens in to Red: she hears and sees Ann and Ben instead of the main session;
        # Red never hears or sees her, Dee still sees her.
        await host.request("listenIn", room=rooms["Red"])
        listen_heard = dict(in_rooms_heard, Hana={"Ann", "Ben"})
        listen_seen = dict(in_rooms_seen, Hana={"Ann", "Ben"})
        await self.expect("while Hana listens in to Red", listen_heard, listen_seen)
        for name in ["Ann", "Ben", "Cy", "Dee"]:
            told = [f["event"] for f in self.peers[name].events if f["event"]["type"] == "listening"]
            self.assertEqual(told, [{"type": "listening", "user": users["Hana"], "room": rooms["Red"], "active": True}], name)

        await host.request("stopListening")
        await self.expect("after the listen-in", in_rooms_heard, in_rooms_seen)

        for name, peer in self.peers.items():
            self.assertEqual(peer.offers_sent, 1, f"{name} negotiated again")


if __name__ == "__main__":
    unittest.main()
