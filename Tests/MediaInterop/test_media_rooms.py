"""Audio and video follow rooms, with aiortc peers nobody here wrote: each publishes a tone and a
colour of its own, and hears and sees exactly the publishers of its own location — before a
breakout, in rooms, after a move, after everyone returns — on the transceivers it negotiated
once, with no second offer."""

import asyncio
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from media_peers import PeersOfOneSession  # noqa: E402  (the path is set just above)
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

# How long a condition must be met within, and the window it is read over.
CONVERGE_SECONDS = 25
RECENT_SECONDS = 1.0
# After converging, how long nothing from elsewhere may arrive.
STABLE_SECONDS = 1.5

PALETTE = {
    "Hana": (440, (220, 40, 40)),
    "Ann": (620, (40, 200, 40)),
    "Ben": (820, (40, 40, 220)),
    "Cy": (1020, (230, 220, 40)),
}


class MediaFollowsRoomsTests(PeersOfOneSession, AsyncioTestCase):
    palette = PALETTE
    session = "media-rooms"

    async def expect(self, where, groups):
        """Each peer comes to hear and see exactly the others of its group, then receives nothing
        else for a while."""
        expected = {name: set(group) - {name} for group in groups for name in group}

        def received(name, since):
            return self.peers[name].heard(since), self.peers[name].seen(since)

        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            recent = time.monotonic() - RECENT_SECONDS
            now = {name: received(name, recent) for name in expected}
            if all(heard == expected[name] and seen == expected[name] for name, (heard, seen) in now.items()):
                break
            if time.monotonic() > deadline:
                self.fail(f"{where}: expected {expected}, received (heard, seen) {now}\n{await self.diagnosis()}")
            await asyncio.sleep(0.2)
        stable_from = time.monotonic()
        await asyncio.sleep(STABLE_SECONDS)
        ids = {name: peer.user for name, peer in self.peers.items()}
        for name in expected:
            slot_users = self.peers[name].slot_users()
            wanted = {ids[other] for other in expected[name]}
            self.assertEqual(slot_users["audio"], wanted, f"{where}: {name}'s audio slot map")
            self.assertEqual(slot_users["video"], wanted, f"{where}: {name}'s video slot map")
            heard, seen = received(name, stable_from)
            if heard != expected[name] or seen != expected[name]:
                # With what tells a stalled receiver from a server that stopped forwarding.
                self.fail(f"{where}: {name} heard {heard} and saw {seen} while stable, expected {expected[name]}\n"
                          f"{await self.diagnosis()}")

    async def diagnosis(self):
        """What tells a server that stopped forwarding apart from a receiver that stalled: each
        peer's connection and slot map, what each of its receive slots recognised lately, the RTP
        packets each slot's receiver got over one second, and the server's last words."""
        before = {name: await peer.packets_received() for name, peer in self.peers.items()}
        await asyncio.sleep(1.0)
        lines = []
        for name, peer in self.peers.items():
            after = await peer.packets_received()
            lines.append(f"{name} (user {peer.user}): connection {peer.pc.connectionState}, ICE {peer.pc.iceConnectionState}; "
                         f"slot map {peer.slot_map}")
            for mid, reception in sorted(peer.receptions.items()):
                recent = sorted(label for label in reception.since(time.monotonic() - 3.0) if label)
                lines.append(f"  mid {mid} ({reception.kind}): packets in 1 s {after.get(mid, 0) - before[name].get(mid, 0)}, "
                             f"recognised in 3 s {recent}")
        running = self.server.process.poll() is None
        lines.append(f"the server {'runs' if running else f'exited with {self.server.process.returncode}'}; its last output:")
        lines += ["  " + line.rstrip() for line in self.server.output[-20:]]
        return "\n".join(lines)

    async def room_ids(self):
        snapshot = (await self.peers["Hana"].request("getSnapshot"))["snapshot"]
        return {room["name"]: room["id"] for room in snapshot["breakout"]["rooms"]}

    async def test_media_follows_rooms_without_renegotiation(self):
        host, users = self.peers["Hana"], {name: peer.user for name, peer in self.peers.items()}
        await self.expect("before the breakout", [["Hana", "Ann", "Ben", "Cy"]])

        await host.request("addToPreList", names=["Red", "Blue"])
        await host.request("preAssign", users=[users["Ann"], users["Ben"]], name="Red")
        await host.request("preAssign", users=[users["Cy"]], name="Blue")
        await host.request("commit")
        await host.request("start", autoMove=True)
        await self.expect("in rooms", [["Hana"], ["Ann", "Ben"], ["Cy"]])

        rooms = await self.room_ids()
        await host.request("assign", users=[users["Cy"]], room=rooms["Red"])
        await self.expect("after a move", [["Hana"], ["Ann", "Ben", "Cy"]])

        await host.request("returnEveryone")
        await self.expect("after everyone returned", [["Hana", "Ann", "Ben", "Cy"]])

        # Publishing nothing stops the forwarding, though the peers' tracks still send.
        for peer in self.peers.values():
            await peer.request("publish", media=[])
        await self.expect("after everyone stopped publishing", [[name] for name in PALETTE])

        for name, peer in self.peers.items():
            self.assertEqual(peer.offers_sent, 1, f"{name} negotiated again")
            self.assertEqual(peer.pc.signalingState, "stable", name)
            self.assertEqual([t.mid for t in peer.pc.getTransceivers()], peer.mids, f"{name}'s transceivers changed")


if __name__ == "__main__":
    unittest.main()
