"""Prints headless Chromium's offer (audio + video transceivers), CRLF line endings kept.

Regenerate the fixtures with:
    python3 chromium_offer.py > chromium-offer.sdp
    python3 chromium_offer.py simulcast > chromium-simulcast-offer.sdp
"""
import html
import pathlib
import re
import subprocess
import sys

page = pathlib.Path(__file__).with_name("chromium-offer.html").resolve().as_uri()
if len(sys.argv) > 1:
    page += "?" + sys.argv[1]
# The dump races the page's promise now and then; a few tries settle it.
for attempt in range(5):
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom", page],
        check=True, capture_output=True, text=True,
    ).stdout
    sdp = html.unescape(re.search(r'<pre id="o">(.*?)</pre>', dom, re.S).group(1))
    if sdp.startswith("v=0"):
        break
else:
    sys.exit("no offer: " + sdp)
lines = [line.rstrip("\r") for line in sdp.split("\n") if line.strip()]
sys.stdout.buffer.write(("\r\n".join(lines) + "\r\n").encode())
