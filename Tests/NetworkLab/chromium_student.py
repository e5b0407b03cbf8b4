"""Headless Chromium driven by Selenium, run inside a lab namespace (`ip netns exec NS python3
chromium_student.py CONFIG`): chromedriver's port is on that namespace's loopback, so the driver
lives here and the test talks to it in JSON lines (one request on stdin, one answer on stdout).

CONFIG (JSON): fixtures (a folder with tone.wav and picture.y4m, the fake microphone and camera),
home (a temporary HOME: its NSS database may trust a test CA), and extraArguments (Chromium flags).
The profile is chromedriver's own temporary one: with a fresh --user-data-dir instead, the first
navigation in a lab namespace took 8 to 21 s (about 0.1 s with chromedriver's).
Requests: {"op": "get", "url"}; {"op": "script", "source", "args"} (execute_script: `arguments`);
{"op": "async", "source", "args"} (execute_async_script: the last argument is the callback);
{"op": "log"} (the browser console); {"op": "quit"}. Answers: {"value": …} or {"error": "…"}."""

import json
import os
import sys
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def browser(config):
    options = Options()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={config['fixtures']}/tone.wav",
        f"--use-file-for-fake-video-capture={config['fixtures']}/picture.y4m",
        "--autoplay-policy=no-user-gesture-required",
        *config.get("extraArguments", []),
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def main(config):
    os.environ["HOME"] = config["home"]
    driver = browser(config)
    driver.set_script_timeout(60)
    print(json.dumps({"value": "ready"}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "get":
                driver.get(request["url"])
                value = driver.current_url
            elif request["op"] == "script":
                value = driver.execute_script(request["source"], *request.get("args", []))
            elif request["op"] == "async":
                value = driver.execute_async_script(request["source"], *request.get("args", []))
            elif request["op"] == "log":
                value = [f"{entry['level']}: {entry['message']}" for entry in driver.get_log("browser")]
            elif request["op"] == "quit":
                break
            else:
                raise ValueError(f"unknown op {request['op']}")
            answer = {"value": value}
        except Exception as error:  # the test shows it; the driver keeps serving
            answer = {"error": f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}"}
        print(json.dumps(answer), flush=True)
    driver.quit()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
