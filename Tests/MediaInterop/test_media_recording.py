"""Recording every location, with aiortc publishers nobody here wrote sending real Opus and VP8 to
a real `caucus serve`, and the files read by FFmpeg (`ffprobe`, PyAV): the main session and two
rooms recorded, a move between rooms and a mute, each file's codec and duration against the
timeline and the test's own clock; audio and video of each publisher, and two publishers'
claps, in sync on the location's clock; files a `kill -9` cut short still playable, and
listed by the server started again on the same data folder; and a publisher forced to H.264
recorded into a Matroska file."""

import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from caucus_server import WAIT_SECONDS, CaucusServer  # noqa: E402  (the paths are set just above)
from media_peers import VIDEO_RATE, VIDEO_SIZE  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402
from recording_support import (  # noqa: E402
    BurstTrack, ClapSchedule, FlashTrack, burst_onsets, control, join, open_rooms, probe, session_folder, session_id,
    stopped, timeline, wait_for, white_frames)

# How far a file's duration may be from the time it was recorded (the crash rule: a
# `kill -9` loses at most the cluster being filled, ~1 s).
DURATION_TOLERANCE = 2.0
# How far apart a publisher's white frame and burst, or two publishers' bursts sent together,
# may land on the location's clock.
SYNC_TOLERANCE_MS = 40
# Claps in a recording's first 1.5 s are printed, not held to it: a track's mapping then rests
# on its first one or two sender reports, and aiortc stamps each report with the time its last
# packet left (after the encoder and its event loop), up to ~35 ms late on a busy machine; from
# the next reports on the server takes the earliest-placing one (LocationClock).
SETTLE_MS = 1500


class RecordingTests(AsyncioTestCase):
    async def asyncSetUp(self):
        asyncio.get_running_loop().set_debug(False)  # debug bookkeeping costs the encoders CPU
        self.server = CaucusServer()
        self.peers = []

    async def asyncTearDown(self):
        for peer in self.peers:
            await peer.close_quietly()
        self.server.stop()
        if not self.server.owns_data:
            shutil.rmtree(self.server.data, ignore_errors=True)

    async def join(self, session, name, role="participant", **media):
        peer = await join(self.server, session, name, role, **media)
        self.peers.append(peer)
        return peer

    def files(self, folder):
        return sorted(path.name for path in folder.glob("*.webm"))

    async def test_rooms_moves_and_mutes_are_recorded_in_files_and_timelines(self):
        session = "recording-rooms"
        host = await self.join(session, "Teacher", "host")
        ann = await self.join(session, "Ann", tone=440, colour=(220, 40, 40))
        ben = await self.join(session, "Ben", tone=620, colour=(40, 200, 40))
        cy = await self.join(session, "Cy", tone=820, colour=(40, 40, 220))
        for peer in (ann, ben, cy):
            await peer.start_sending()
        rooms = await open_rooms(host, {"Red": [ben.user], "Blue": [cy.user]})
        red, blue = f"room-{rooms['Red']}", f"room-{rooms['Blue']}"

        await host.request("startRecording", locations=[None])
        await host.request("startRecording", all=True)
        started = time.monotonic()
        await asyncio.sleep(4)
        await host.request("assign", users=[cy.user], room=rooms["Red"])
        moved = time.monotonic()
        await asyncio.sleep(3)
        await ben.request("publish", media=["video"])
        muted = time.monotonic()
        await asyncio.sleep(3)
        await host.request("stopRecording", all=True)
        ended = time.monotonic()

        folder = session_folder(self.server, session_id(self.server, session))
        await wait_for("every timeline to end", lambda: all(stopped(folder / where) for where in ("main", red, blue)))
        a, b, c = (f"u{peer.user}" for peer in (ann, ben, cy))
        lines = {where: timeline(folder / where) for where in ("main", red, blue)}

        def line(where, event, user, **fields):
            found = [entry for entry in lines[where] if entry["event"] == event and entry.get("user") == user
                     and all(entry.get(key) == value for key, value in fields.items())]
            self.assertEqual(len(found), 1, f"one {event} of {user} {fields} in {where}: {lines[where]}")
            return found[0]

        # The timelines: who was where, the move out of Blue into Red, Ben's mute.
        for where, users in (("main", [a]), (red, [b]), (blue, [c])):
            self.assertEqual(lines[where][0]["event"], "recordingStarted", where)
            self.assertEqual(lines[where][0]["location"], where)
            self.assertEqual(lines[where][-1]["event"], "recordingStopped", where)
            for user in users:
                line(where, "joined", user)
        moved_out = line(blue, "movedOut", c, to=red)
        moved_in = line(red, "movedIn", c, **{"from": blue})
        mute = line(red, "muted", b, kind="audio")
        self.assertFalse([entry for entry in lines["main"] + lines[blue] if entry["event"] == "muted"], "only Ben muted")
        for where in ("main", red, blue):
            # Each timeline lasts as long as the test's clock says recording did.
            recorded = (lines[where][-1]["t"] - lines[where][0]["t"]) / 1000
            self.assertLess(abs(recorded - (ended - started)), 1.0, f"{where}'s timeline lasts {recorded} s")
        self.assertLess(abs(moved_in["t"] - moved_out["t"]), 500, "one move, one moment")
        self.assertLess(abs(moved_out["t"] / 1000 - (moved - started)), 1.0, "the move on the location's clock")
        self.assertLess(abs(mute["t"] / 1000 - (muted - started)), 1.0, "the mute on the location's clock")

        # The files: one per publisher and kind and location, the host (publishing nothing) none.
        expected = {"main": {a}, red: {b, c}, blue: {c}}
        for where, users in expected.items():
            self.assertEqual(self.files(folder / where), sorted(f"{u}-{k}-0.webm" for u in users for k in ("audio", "video")), where)
        # Each file's time in its location on the test's clock: from the start (or the move) to
        # the stop (or the move, or for Ben's audio the mute).
        wall = {("main", a): ended - started, (red, b): ended - started, (blue, c): moved - started, (red, c): ended - moved}
        for where, users in expected.items():
            ended_lines = {entry["file"]: entry for entry in lines[where] if entry["event"] == "fileEnded"}
            for user in users:
                for kind in ("audio", "video"):
                    name = f"{user}-{kind}-0.webm"
                    codec, seconds = probe(folder / where / name)
                    self.assertEqual(codec, "opus" if kind == "audio" else "vp8", name)
                    start = line(where, "fileStarted", user, kind=kind)["t"]
                    end = ended_lines[name]
                    self.assertLess(abs(seconds - end["duration"] / 1000), DURATION_TOLERANCE, f"{where}/{name}: ffprobe {seconds} s, {end}")
                    truth = muted - started if (where, user, kind) == (red, b, "audio") else wall[(where, user)]
                    self.assertLess(abs(seconds - truth), DURATION_TOLERANCE, f"{where}/{name}: {seconds} s, recorded for {truth:.2f} s")
                    if (where, user) == (blue, c):
                        # Cy's files split at the move: Blue's end there, Red's start there.
                        self.assertLess(abs(start + end["duration"] - moved_out["t"]), 1000, f"{name} ends at the move")
                    if (where, user) == (red, c):
                        self.assertGreaterEqual(start, moved_in["t"] - 100, f"{name} starts after the move")
                        self.assertLess(start - moved_in["t"], 1500, f"{name} starts near the move")

        # The list API agrees with the folder: every file, its size, its timeline's start and duration.
        listed = control(self.server, f"/v1/sessions/{folder.name}/recordings")
        on_disk = {(where.name, path.name): path.stat().st_size for where in folder.iterdir() if where.is_dir() for path in where.glob("*.webm")}
        self.assertEqual({(entry["location"], entry["file"]): entry["size"] for entry in listed["recordings"]}, on_disk)
        for entry in listed["recordings"]:
            self.assertTrue(entry["ended"], entry)
            started_line = line(entry["location"], "fileStarted", entry["user"], kind=entry["kind"])
            self.assertEqual((entry["start"], entry["codec"]), (started_line["t"], started_line["codec"]), entry)

    async def test_an_aiortc_h264_publisher_is_recorded_into_a_matroska_file(self):
        session = "recording-h264"
        ann = await self.join(session, "Ann", tone=440, colour=(220, 40, 40))
        await ann.start_sending(video_codec="video/H264")
        video_answer = ann.pc.remoteDescription.sdp.split("m=video")[1]
        self.assertIn("H264/90000", video_answer, "the server's answer takes H.264")
        self.assertNotIn("VP8/90000", video_answer)
        identifier = session_id(self.server, session)
        control(self.server, f"/v1/sessions/{identifier}/recording/start", {"locations": [None]})
        started = time.monotonic()
        await asyncio.sleep(6)
        control(self.server, f"/v1/sessions/{identifier}/recording/stop", {"locations": [None]})
        ended = time.monotonic()

        folder = session_folder(self.server, identifier) / "main"
        await wait_for("the timeline to end", lambda: stopped(folder))
        a = f"u{ann.user}"
        lines = timeline(folder)
        video = [entry for entry in lines if entry["event"] == "fileStarted" and entry["user"] == a and entry["kind"] == "video"]
        self.assertEqual(len(video), 1, lines)
        name = video[0]["file"]
        self.assertEqual((name, video[0]["codec"]), (f"{a}-video-0.mkv", "h264"), video[0])
        self.assertEqual((video[0]["width"], video[0]["height"]), VIDEO_SIZE, video[0])
        self.assertEqual(sorted(path.name for path in folder.glob("*.mkv")), [name], "only the video is Matroska")
        self.assertEqual(sorted(path.name for path in folder.glob("*.webm")), [f"{a}-audio-0.webm"])

        codec, seconds = probe(folder / name)
        self.assertEqual(codec, "h264")
        self.assertLess(abs(seconds - (ended - started)), DURATION_TOLERANCE, f"ffprobe {seconds} s, recorded {ended - started:.2f} s")
        size = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                               str(folder / name)], capture_output=True, text=True, timeout=WAIT_SECONDS).stdout.strip()
        self.assertEqual(size, f"{VIDEO_SIZE[0]},{VIDEO_SIZE[1]}")
        # FFmpeg decodes every frame, at the file's own times: `-enc_time_base -1` keeps them in
        # ms. By default FFmpeg retimes frames onto a frame rate it guesses (10/1, 30/1, 121/12
        # for this one) and, where a frame came less than a guessed frame after the one before
        # (the file's times moved toward the clock, FrameTiming), gives two frames one time and
        # says "non monotonically increasing dts", a statement about its guess, not the file.
        # Two frames of one time in the file are still refused (the same message, in ms).
        decode = subprocess.run(["ffmpeg", "-v", "error", "-i", str(folder / name), "-enc_time_base", "-1", "-f", "null", "-"],
                                capture_output=True, text=True, timeout=WAIT_SECONDS)
        self.assertEqual((decode.returncode, decode.stderr), (0, ""), "FFmpeg decodes every frame")
        counted = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-count_packets", "-select_streams", "v:0",
                                  "-show_entries", "stream=nb_read_frames,nb_read_packets", "-of", "csv=p=0", str(folder / name)],
                                 capture_output=True, text=True, timeout=WAIT_SECONDS).stdout.strip()
        frames, packets = (int(value) for value in counted.split(","))
        self.assertEqual(frames, packets, "a picture from every frame")
        # The sender's spacing (100 ms at 10 fps, or a multiple across a lost frame), moved
        # toward the clock by at most 1/16 of each gap (FrameTiming): never a step of tens of
        # ms, never two frames at one time.
        times = [int(value) for value in subprocess.run(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", str(folder / name)],
            capture_output=True, text=True, timeout=WAIT_SECONDS).stdout.split()]
        self.assertEqual(len(times), packets)
        frame_ms = 1000 // VIDEO_RATE
        spacing = [later - earlier for earlier, later in zip(times, times[1:])]
        uneven = [gap for gap in spacing
                  if not any(abs(gap - frame_ms * count) <= frame_ms * count / 16 + 1 for count in range(1, gap // frame_ms + 2))]
        self.assertEqual(uneven, [], f"frames {frame_ms} ms apart (or a multiple, across a lost one): {spacing}")

        listed = control(self.server, f"/v1/sessions/{identifier}/recordings")
        entry = next(entry for entry in listed["recordings"] if entry["file"] == name)
        self.assertEqual((entry["codec"], entry["kind"], entry["size"]), ("h264", "video", (folder / name).stat().st_size), entry)

    async def test_audio_and_video_of_each_publisher_and_two_publishers_claps_agree(self):
        session = "recording-sync"
        host = await self.join(session, "Teacher", "host")
        schedule = ClapSchedule(time.monotonic() + 1.0)
        ann = await self.join(session, "Ann")
        await ann.start_sending(BurstTrack(schedule), FlashTrack(schedule))
        await asyncio.sleep(0.7)  # the two publishers start at different moments of the schedule
        ben = await self.join(session, "Ben")
        await ben.start_sending(BurstTrack(schedule), FlashTrack(schedule))
        rooms = await open_rooms(host, {"Lab": [ann.user, ben.user]})
        await host.request("startRecording", locations=[rooms["Lab"]])
        await asyncio.sleep(13)
        await host.request("stopRecording", all=True)
        folder = session_folder(self.server, session_id(self.server, session)) / f"room-{rooms['Lab']}"
        await wait_for("the timeline to end", lambda: stopped(folder))

        lines = timeline(folder)
        onsets, flashes = {}, {}
        for peer in (ann, ben):
            user = f"u{peer.user}"
            starts = {entry["kind"]: (entry["t"], entry["file"]) for entry in lines if entry["event"] == "fileStarted" and entry["user"] == user}
            self.assertEqual(set(starts), {"audio", "video"}, f"{user}'s files: {lines}")
            onsets[peer.name] = [starts["audio"][0] + t for t in burst_onsets(folder / starts["audio"][1])]
            flashes[peer.name] = [starts["video"][0] + t for t in white_frames(folder / starts["video"][1])]

        def pairs(first, second):
            """(moment, the nearest of `second` less it) for each moment of `first` (claps are 2 s
            apart: within 1 s)."""
            found = []
            for moment in first:
                nearest = min(second, key=lambda other: abs(other - moment), default=None)
                if nearest is not None and abs(nearest - moment) < 1000:
                    found.append((moment, round(float(nearest - moment), 1)))
            return found

        figures = {f"{name} video - audio": pairs(onsets[name], flashes[name]) for name in ("Ann", "Ben")}
        figures["Ben - Ann audio"] = pairs(onsets["Ann"], onsets["Ben"])
        figures["Ben - Ann video"] = pairs(flashes["Ann"], flashes["Ben"])
        settled = {what: [value for moment, value in found if moment >= SETTLE_MS] for what, found in figures.items()}
        early = {what: [value for moment, value in found if moment < SETTLE_MS] for what, found in figures.items()}
        report = {what: (f"median {statistics.median(values):.1f} ms, worst {max(values, key=abs):.1f} ms, n={len(values)}"
                         if values else "none") for what, values in settled.items()}
        print(f"\nsync on the location's clock: {report}; in the first {SETTLE_MS} ms: {early}", file=sys.stderr)
        for what, values in settled.items():
            self.assertGreaterEqual(len(values), 4, f"{what}: too few claps found (bursts {onsets}, white frames {flashes})")
            self.assertLessEqual(max(abs(value) for value in values), SYNC_TOLERANCE_MS, f"{what}: {figures[what]} ({report})")

    async def test_files_a_killed_server_left_probe_with_their_duration_and_are_listed_after_a_restart(self):
        session = "recording-crash"
        await self.join(session, "Teacher", "host")
        for name, tone in (("Ann", 440), ("Ben", 620)):
            peer = await self.join(session, name, tone=tone)
            await peer.start_sending()
        number = session_id(self.server, session)
        control(self.server, f"/v1/sessions/{number}/recording/start", {"locations": [None]})
        await asyncio.sleep(6)
        os.kill(self.server.process.pid, signal.SIGKILL)
        killed = time.time() * 1000
        self.server.process.wait()

        folder = session_folder(self.server, number) / "main"
        lines = timeline(folder)
        clock_zero = lines[0]["wallClock"]
        starts = {entry["file"]: entry["t"] for entry in lines if entry["event"] == "fileStarted"}
        names = self.files(folder)
        self.assertEqual(len(names), 4, f"two publishers' audio and video: {names}")
        self.assertEqual(set(starts), set(names), "the timeline names every file")
        for name in names:
            codec, seconds = probe(folder / name)
            self.assertEqual(codec, "opus" if "-audio-" in name else "vp8", name)
            recorded = (killed - clock_zero - starts[name]) / 1000
            self.assertLess(abs(seconds - recorded), DURATION_TOLERANCE, f"{name}: {seconds} s, recorded for {recorded:.2f} s")

        for peer in self.peers:
            await peer.close_quietly()
        self.peers = []
        killed_server = self.server
        self.server = CaucusServer(data=killed_server.data)
        killed_server.process.stdout.close()
        listed = control(self.server, f"/v1/sessions/{number}/recordings")
        self.assertEqual(sorted(entry["file"] for entry in listed["recordings"] if entry["location"] == "main"), names)
        for entry in listed["recordings"]:
            codec, seconds = probe(folder / entry["file"])
            self.assertEqual(entry["size"], (folder / entry["file"]).stat().st_size, entry)
            self.assertLess(abs(entry["duration"] / 1000 - seconds), DURATION_TOLERANCE, f"{entry} against ffprobe's {seconds} s")


if __name__ == "__main__":
    unittest.main()
