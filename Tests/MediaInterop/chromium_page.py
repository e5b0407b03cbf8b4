"""Headless Chromium as a WebRTC peer for the media interop tests: the browser (with fake capture
devices pointed at a tone and a picture the test writes), and the page `chromium_peer.html`
whose `window.caucus` (chromium_peer.js) holds any number of users, each with its own WebSocket
and RTCPeerConnection."""

import json
import math
import os
import shutil
import struct
import sys
import tempfile
import wave
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "PythonSupport"))
from caucus_server import CaucusServer, WAIT_SECONDS  # noqa: E402  (the path is set just above)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
PAGE = Path(__file__).resolve().parent / "chromium_peer.html"


def write_tone(path, frequency, seconds=1, rate=48000):
    """A mono 16-bit WAV of a whole number of periods, so it loops without a click."""
    count = rate * seconds
    samples = (int(12000 * math.sin(2 * math.pi * frequency * i / rate)) for i in range(count))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(struct.pack("<h", s) for s in samples))


def write_picture(path, colour, size=(160, 120), frames=15, noise=0):
    """A Y4M (4:2:0) video of one colour, BT.601 limited range, as Chromium's fake camera reads it.
    `noise`: each frame's brightness varies at random by up to that much per pixel (the mean, and
    so the colour a page measures, stays), so an encoder needs its whole bitrate for it."""
    r, g, b = colour
    y = round(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
    u = round(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
    v = round(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    width, height = size
    chroma = bytes([u]) * (width * height // 4) + bytes([v]) * (width * height // 4)
    if noise:
        import numpy

        generator = numpy.random.default_rng(7)
        lumas = [numpy.clip(y + generator.integers(-noise, noise + 1, width * height), 16, 235).astype(numpy.uint8).tobytes() for _ in range(frames)]
    else:
        lumas = [bytes([y]) * (width * height)] * frames
    video = b"".join(b"FRAME\n" + luma + chroma for luma in lumas)
    Path(path).write_bytes(f"YUV4MPEG2 W{width} H{height} F15:1 Ip A1:1 C420jpeg\n".encode() + video)


def chromium(fixtures):
    """Headless Chromium whose fake microphone and camera play `fixtures`/tone.wav and
    `fixtures`/picture.y4m."""
    options = Options()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={fixtures / 'tone.wav'}",
        f"--use-file-for-fake-video-capture={fixtures / 'picture.y4m'}",
        "--autoplay-policy=no-user-gesture-required",
        # The server's one candidate is on loopback.
        "--allow-loopback-in-peer-connection",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def browser_log(driver):
    try:
        return "\n".join(f"{entry['level']}: {entry['message']}" for entry in driver.get_log("browser"))
    except Exception as error:  # the log helps the reader; it is never the failure itself
        return f"(no browser log: {error})"


def call(driver, expression, *arguments):
    """Awaits `expression` (a promise) in the page with `arguments` (as `args`); returns its JSON
    value or raises with the page's error and log."""
    outcome = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const args = Array.from(arguments).slice(0, -1);
        Promise.resolve().then(() => (%s)).then(
          (value) => done(JSON.stringify({ value: value ?? null })),
          (error) => done(JSON.stringify({ error: String(error && error.stack || error) })));
        """ % expression,
        *arguments)
    outcome = json.loads(outcome)
    if "error" in outcome:
        raise AssertionError(f"page: {outcome['error']}\n{browser_log(driver)}")
    return outcome["value"]


class ServerAndBrowser:
    """A test class's `caucus serve` and headless Chromium, made once for the class (mix in before
    the TestCase). A class may set `fixtures_prefix` and `server_arguments`, and override
    `write_fixtures(folder)` (the fake devices' tone.wav and picture.y4m: a browser wants them even
    when nobody sends them), `before_browser()` (after the server starts) and `after_browser()`
    (after the browser quits, before the server stops)."""

    fixtures_prefix = "caucus-media-"
    server_arguments = ()

    @classmethod
    def write_fixtures(cls, folder):
        write_tone(folder / "tone.wav", 440)
        write_picture(folder / "picture.y4m", [128, 128, 128])

    @classmethod
    def before_browser(cls):
        pass

    @classmethod
    def after_browser(cls):
        pass

    @classmethod
    def setUpClass(cls):
        cls.fixtures = Path(tempfile.mkdtemp(prefix=cls.fixtures_prefix))
        cls.write_fixtures(cls.fixtures)
        cls.server = CaucusServer(arguments=list(cls.server_arguments))
        try:
            cls.before_browser()
            cls.driver = chromium(cls.fixtures)
        except Exception:
            cls.server.stop()
            raise
        cls.driver.set_script_timeout(WAIT_SECONDS * 2)

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.execute_script("window.caucus && window.caucus.close();")
        finally:
            cls.driver.quit()
            cls.after_browser()
            cls.server.stop()
            shutil.rmtree(cls.fixtures, ignore_errors=True)
