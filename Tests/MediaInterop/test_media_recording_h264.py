"""Recording an H.264 publisher nobody here wrote: an aiortc peer whose video offers H.264 only
(aiortc's libx264 encoder, its RFC 6184 packetizer, its sender reports) publishes in the main
session of a real `caucus serve` while the control API records it. Its video lands in a Matroska
file that FFmpeg reads as H.264 of the peer's size, lasting the time recorded, and decodes without
an error; the list API names it with its codec."""

import asyncio
import shutil
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from caucus_server import WAIT_SECONDS, CaucusServer  # noqa: E402  (the paths are set just above)
from media_peers import VIDEO_SIZE  # noqa: E402
from recording_support import control, join, probe, session_folder, session_id, stopped, timeline, wait_for  # noqa: E402

DURATION_TOLERANCE = 2.0


class H264RecordingTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        asyncio.get_running_loop().set_debug(False)  # debug bookkeeping costs the encoder CPU
        self.server = CaucusServer()
        self.peers = []

    async def asyncTearDown(self):
        for peer in self.peers:
            await peer.close_quietly()
        self.server.stop()
        if not self.server.owns_data:
            shutil.rmtree(self.server.data, ignore_errors=True)

    async def test_an_aiortc_h264_publisher_is_recorded_into_a_matroska_file(self):
        session = "recording-h264"
        ann = await join(self.server, session, "Ann", tone=440, colour=(220, 40, 40))
        self.peers.append(ann)
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
        decode = subprocess.run(["ffmpeg", "-v", "error", "-i", str(folder / name), "-f", "null", "-"],
                                capture_output=True, text=True, timeout=WAIT_SECONDS)
        self.assertEqual((decode.returncode, decode.stderr), (0, ""), "FFmpeg decodes every frame")

        listed = control(self.server, f"/v1/sessions/{identifier}/recordings")
        entry = next(entry for entry in listed["recordings"] if entry["file"] == name)
        self.assertEqual((entry["codec"], entry["kind"], entry["size"]), ("h264", "video", (folder / name).stat().st_size), entry)


if __name__ == "__main__":
    unittest.main()
