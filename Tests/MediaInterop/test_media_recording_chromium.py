"""Recording a Chromium publisher: headless Chromium sends its fake microphone (a 440 Hz tone the
test writes) and fake camera (a red 160x120 picture) through getUserMedia into the main session
of a real `caucus serve`. Chromium negotiates redundant audio (RFC 2198, `red/48000/2`) with the
server, so its audio arrives as Opus wrapped in RED: the recording must hold the plain Opus (the
forwarding engine hands the recorder RED's primary encoding).

The app's server records the main session through the control API for about 6 s, starting
10 s into Chromium's media (when its audio sender reports have slowed to one every 2.5–7.5 s),
then stops. Asserted: both files start within 1.5 s of the start (each track is handed its
last sender report when recording starts, instead of waiting for the next); the timeline has
the publisher's `fileStarted` (audio and video) and `fileEnded` lines and ends with
`recordingStopped`; `ffprobe` reads the audio as Opus and the video as VP8, each
lasting the time recorded (within 2 s); FFmpeg decodes both without an error; the decoded audio
is the tone (loud, its spectrum's peak at 440 Hz), and the decoded video's frames have the size
the timeline states and the picture's red."""

import asyncio
import subprocess
import sys
import time
import unittest
from pathlib import Path

import av
import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from caucus_server import WAIT_SECONDS  # noqa: E402  (the paths are set just above)
from chromium_page import PAGE, ServerAndBrowser, browser_log, call, write_picture, write_tone  # noqa: E402
from recording_support import control, files_started, probe, session_folder, session_id, stopped, timeline, wait_for  # noqa: E402
from asyncio_test_case import AsyncioTestCase  # noqa: E402  (beside this file)

SESSION = "recording-chromium"
TONE_HZ = 440
COLOUR = [220, 40, 40]
SIZE = [160, 120]
RECORD_SECONDS = 6
# Chromium's media runs this long before recording starts: past its first, quicker, sender
# reports, to when its audio sends one every 2.5-7.5 s.
MEDIA_BEFORE_RECORDING_SECONDS = 10
# How soon after recording starts both files must have started: a keyframe asked for and sent
# (video), the next batch written (every 100 ms), and a loaded machine's slack.
FILES_START_WITHIN_SECONDS = 1.5
# How far a file's duration may be from the time it was recorded.
DURATION_TOLERANCE = 2.0
# The tone file's amplitude is 12000 of 32767 (-8.7 dBFS, RMS ~0.26); silence, or a decoder's
# comfort noise, is far below this RMS (of samples in [-1, 1]).
AUDIBLE_RMS = 0.05

# Of each kind the publisher sends: its packets sent (getStats) and the codec it sends, the first
# of its sender's negotiated codecs (getStats names Opus for RED too).
SENDING = """
(async () => {
  const pc = window.caucus.peers.get(args[0]).pc;
  const stats = await pc.getStats();
  const found = {};
  for (const sender of pc.getSenders()) {
    found[sender.track.kind] = { packetsSent: 0, codec: sender.getParameters().codecs[0]?.mimeType ?? null };
  }
  for (const report of stats.values()) {
    if (report.type === "outbound-rtp" && found[report.kind]) found[report.kind].packetsSent = report.packetsSent ?? 0;
  }
  return found;
})()
"""


def ffmpeg_errors(path):
    """What FFmpeg says decoding every frame of `path` at `-v error` (empty when nothing is wrong)."""
    result = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "null", "-"],
                            capture_output=True, text=True, timeout=WAIT_SECONDS)
    return result.stderr.strip() or ("" if result.returncode == 0 else f"exit {result.returncode}")


def decoded_audio(path):
    """The file's first channel decoded by PyAV, as floats in [-1, 1], and its sample rate."""
    chunks, rate = [], None
    with av.open(str(path)) as container:
        for frame in container.decode(container.streams.audio[0]):
            samples = frame.to_ndarray().astype(numpy.float64)
            if not (frame.format.name.startswith("flt") or frame.format.name.startswith("dbl")):
                samples /= 32768
            channels = len(frame.layout.channels)
            chunks.append(samples[0] if frame.format.is_planar else samples.reshape(-1)[::channels])
            rate = frame.sample_rate
    return numpy.concatenate(chunks) if chunks else numpy.zeros(0), rate


def decoded_video(path):
    """(width, height, mean RGB) of each frame of the file, decoded by PyAV."""
    frames = []
    with av.open(str(path)) as container:
        for frame in container.decode(container.streams.video[0]):
            rgb = frame.to_ndarray(format="rgb24")
            frames.append((frame.width, frame.height, rgb.reshape(-1, 3).mean(axis=0)))
    return frames


class ChromiumRecordingTests(ServerAndBrowser, AsyncioTestCase):
    fixtures_prefix = "caucus-recording-chromium-"

    @classmethod
    def write_fixtures(cls, folder):
        write_tone(folder / "tone.wav", TONE_HZ)
        write_picture(folder / "picture.y4m", COLOUR, size=tuple(SIZE))

    async def asyncSetUp(self):
        asyncio.get_running_loop().set_debug(False)

    async def asyncTearDown(self):
        await self.page("window.caucus.close()")

    async def page(self, expression, *arguments):
        return await asyncio.to_thread(call, self.driver, expression, *arguments)

    async def test_a_chromium_publishers_red_audio_and_vp8_video_are_recorded_as_playable_opus_and_vp8(self):
        await asyncio.to_thread(self.driver.get, PAGE.as_uri())
        options = {"name": "Pia", "wsURL": self.server.base.replace("http", "ws") + "/ws", "session": SESSION,
                   "token": self.server.token(SESSION, "participant", "Pia"), "role": "participant", "palette": {}}
        user = f"u{await self.page('window.caucus.join(args[0])', options)}"
        await self.page("window.caucus.startMedia(args[0], args[1])", "Pia",
                        {"audioSlots": 0, "videoSlots": 0, "source": "fake-device", "size": SIZE})
        sending = {}
        deadline = time.monotonic() + WAIT_SECONDS
        while not all(sending.get(kind, {}).get("packetsSent", 0) > 50 for kind in ("audio", "video")):
            if time.monotonic() > deadline:
                self.fail(f"Chromium is not sending: {sending}\n{browser_log(self.driver)[-3000:]}")
            await asyncio.sleep(0.2)
            sending = await self.page(SENDING, "Pia")
        # Chromium sends RED when the server's answer puts it first: the case where the recorder
        # must be handed the primary Opus, not RED's payload.
        self.assertEqual(sending["audio"]["codec"], "audio/red", f"Chromium's audio codec: {sending}")
        self.assertEqual(sending["video"]["codec"], "video/VP8", f"Chromium's video codec: {sending}")

        await asyncio.sleep(MEDIA_BEFORE_RECORDING_SECONDS)
        number = session_id(self.server, SESSION)
        control(self.server, f"/v1/sessions/{number}/recording/start", {"locations": [None]})
        started = time.monotonic()
        # A recorded track's frames wait for a sender report to place them on the location's
        # clock (docs/recording.md), and Chromium's audio sends one every 5 s on average, at
        # random from 2.5 to 7.5 s: the server hands each track its last one as recording
        # starts, so neither file waits for the next.
        folder = session_folder(self.server, number) / "main"
        began = {}
        while len(began) < 2 and time.monotonic() - started < WAIT_SECONDS:
            for kind in files_started(folder, user) - set(began):
                began[kind] = round(time.monotonic() - started, 2)
            await asyncio.sleep(0.05)
        print(f"\nfiles started after recording began: {began} s", file=sys.stderr)
        self.assertEqual(set(began), {"audio", "video"}, f"the publisher's files: {began}")
        self.assertLess(max(began.values()), FILES_START_WITHIN_SECONDS, f"files started after recording began: {began} s")
        await asyncio.sleep(RECORD_SECONDS - (time.monotonic() - started))
        control(self.server, f"/v1/sessions/{number}/recording/stop", {"all": True})
        recorded = time.monotonic() - started
        await wait_for("the timeline to end", lambda: stopped(folder))

        lines = timeline(folder)
        self.assertEqual(lines[0]["event"], "recordingStarted", lines)
        self.assertEqual(lines[-1]["event"], "recordingStopped", lines)
        starts = {entry["kind"]: entry for entry in lines if entry["event"] == "fileStarted" and entry.get("user") == user}
        ends = {entry["kind"]: entry for entry in lines if entry["event"] == "fileEnded" and entry.get("user") == user}
        self.assertEqual(set(starts), {"audio", "video"}, f"{user}'s fileStarted lines: {lines}")
        self.assertEqual(set(ends), {"audio", "video"}, f"{user}'s fileEnded lines: {lines}")
        self.assertEqual(sorted(path.name for path in folder.glob("*.webm")), sorted(entry["file"] for entry in starts.values()))

        durations = {}
        for kind, codec in (("audio", "opus"), ("video", "vp8")):
            path = folder / starts[kind]["file"]
            self.assertEqual(starts[kind]["codec"], codec, starts[kind])
            self.assertEqual(ends[kind]["file"], starts[kind]["file"], ends[kind])
            probed, seconds = probe(path)
            durations[kind] = seconds
            self.assertEqual(probed, codec, path.name)
            self.assertLess(abs(seconds - recorded), DURATION_TOLERANCE, f"{path.name}: ffprobe {seconds} s, recorded for {recorded:.2f} s")
            self.assertLess(abs(seconds - ends[kind]["duration"] / 1000), DURATION_TOLERANCE, f"{path.name}: ffprobe {seconds} s, {ends[kind]}")
            self.assertEqual(ffmpeg_errors(path), "", f"FFmpeg decoding {path.name}")

        samples, rate = decoded_audio(folder / starts["audio"]["file"])
        self.assertGreater(len(samples), rate * (recorded - DURATION_TOLERANCE), f"{len(samples)} samples at {rate} Hz")
        steady = samples[rate // 2:]  # past the decoder's first frames
        rms = float(numpy.sqrt(numpy.mean(steady ** 2)))
        spectrum = numpy.abs(numpy.fft.rfft(steady * numpy.hanning(len(steady))))
        peak = float(numpy.fft.rfftfreq(len(steady), 1 / rate)[numpy.argmax(spectrum)])
        print(f"\nsent {sending}; recorded {recorded:.2f} s, files {durations} s; audio RMS {rms:.3f}, peak {peak:.1f} Hz", file=sys.stderr)
        self.assertGreater(rms, AUDIBLE_RMS, "the recorded audio is silent")
        self.assertLess(abs(peak - TONE_HZ), 5, f"the recorded audio's peak is {peak:.1f} Hz, not the tone's {TONE_HZ} Hz")

        frames = decoded_video(folder / starts["video"]["file"])
        size = (starts["video"]["width"], starts["video"]["height"])
        self.assertEqual(size, tuple(SIZE), f"the timeline's size: {starts['video']}")
        self.assertGreater(len(frames), recorded * 5, f"{len(frames)} frames decoded")
        self.assertEqual({(width, height) for width, height, _ in frames}, {size}, "every frame of the timeline's size")
        red, green, blue = numpy.mean([mean for _, _, mean in frames], axis=0)
        self.assertGreater(red - max(green, blue), 100, f"the frames' mean colour {red:.0f},{green:.0f},{blue:.0f}, not the picture's red")


if __name__ == "__main__":
    unittest.main()
