"""Loudest speakers with aiortc peers (issue 23's Show): a room of six, where five speak in turn
and one listens. aiortc writes each packet's RFC 6464 level from its samples, so a speaker's
level follows its tone's amplitude, which the test scripts (silent, then loud for its turn).
Every peer offers two audio slots.

Asserted: at each turn, every other peer's audio slots hold the new speaker within
SWITCH_WITHIN_SECONDS of the turn's start (from the slot map frames, timed where they arrive);
and while four speak at once at similar levels (within 2 dB), nobody's audio slots change after
the first second (no flapping)."""

import asyncio
import statistics
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from media_peers import PeersOfOneSession  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

LISTENER = "Lee"
SPEAKERS = ["Sam", "Sia", "Sol", "Sue", "Syd"]
TURN_SECONDS = 2.0
QUIET_SECONDS = 3.0
LOUD = 12000  # about −11 dBov
SWITCH_WITHIN_SECONDS = 0.3
SIMILAR = [12000, 11000, 10000, 9600]  # within 2 dB of each other
SIMILAR_SECONDS = 5.0


def audio_users(slots):
    return {slot.get("user") for slot in slots if slot.get("kind") == "audio"} - {None}


class LoudestSpeakerTests(PeersOfOneSession, AsyncioTestCase):
    session = "media-speakers"
    palette = {name: (300 + 200 * index, (40 * index, 200 - 30 * index, 120)) for index, name in enumerate([LISTENER, *SPEAKERS])}
    audio_slots = 2
    video_slots = 0

    def users(self, names):
        return {self.peers[name].user for name in names}

    async def asyncSetUp(self):
        asyncio.get_running_loop().set_debug(False)
        await super().asyncSetUp()
        for peer in self.peers.values():
            peer.tone_track.gain = 0

    def holding(self, peer, user, since):
        """When `peer`'s audio slots first held `user` at or after `since` (its map at `since` counts)."""
        before = [entry for entry in peer.slot_maps if entry[0] < since]
        if before and user in audio_users(before[-1][1]):
            return since
        return next((at for at, slots, _ in peer.slot_maps if at >= since and user in audio_users(slots)), None)

    async def test_the_slots_follow_whoever_speaks_and_do_not_flap(self):
        # Everyone silent long enough that the ranking has published its quiet (each holder's
        # 1 s hang, then the 500 ms between publications): the first turn then waits for nothing.
        await asyncio.sleep(QUIET_SECONDS)
        latencies = {}
        for speaker in SPEAKERS:
            for name in SPEAKERS:
                self.peers[name].tone_track.gain = LOUD if name == speaker else 0
            start = time.monotonic()
            await asyncio.sleep(TURN_SECONDS)
            user = self.peers[speaker].user
            for name, peer in self.peers.items():
                if name == speaker:
                    continue
                held = self.holding(peer, user, start)
                latencies[(speaker, name)] = None if held is None else held - start

        # Four speak at once, within 2 dB of each other.
        for name, gain in zip(SPEAKERS, SIMILAR + [0]):
            self.peers[name].tone_track.gain = gain
        similar_start = time.monotonic()
        await asyncio.sleep(SIMILAR_SECONDS)
        settled = similar_start + 1.0
        changes = {}
        for name, peer in self.peers.items():
            maps = [audio_users(slots) for at, slots, _ in peer.slot_maps if at >= settled]
            earlier = [audio_users(slots) for at, slots, _ in peer.slot_maps if at < settled]
            sequence = ([earlier[-1]] if earlier else []) + maps
            changes[name] = sum(1 for a, b in zip(sequence, sequence[1:]) if a != b)

        measured = [value for value in latencies.values() if value is not None]
        summary = (f"\nturns: the new speaker held by every other peer's slots after median "
                   f"{statistics.median(measured) * 1000:.0f} ms, max {max(measured) * 1000:.0f} ms "
                   f"({len(measured)} of {len(latencies)} held); four similar speakers: slot changes after the first second {changes}")
        print(summary, file=sys.stderr)
        failures = [f"{name} never held {speaker}" for (speaker, name), value in latencies.items() if value is None]
        failures += [f"{name} held {speaker} only after {value * 1000:.0f} ms" for (speaker, name), value in latencies.items()
                     if value is not None and value > SWITCH_WITHIN_SECONDS]
        failures += [f"{name}'s audio slots changed {count} times among similar speakers" for name, count in changes.items() if count]
        if failures:
            self.fail("\n".join(failures) + summary)


if __name__ == "__main__":
    unittest.main()
