"""A reloaded page whose seat the server no longer holds (the resume is refused) goes back to
the landing and says so; and its camera and microphone, still opening when the refusal came
(a permission prompt answered late), go off again at once instead of staying on behind a
page that left the session."""

import unittest

from console_support import ConsoleTestCase

# Run in the reloaded page before its own scripts: getUserMedia answers only once the page
# shows the refusal, and every stream it gives is kept for the test to look at.
DEVICES_OPEN_AFTER_THE_REFUSAL = """
(() => {
  window.__opened = [];
  const devices = navigator.mediaDevices;
  const getUserMedia = devices.getUserMedia.bind(devices);
  const refused = () => new Promise((resolve) => {
    const check = () => (document.body?.innerText.includes("has expired") ? resolve() : setTimeout(check, 20));
    check();
  });
  devices.getUserMedia = async (constraints) => {
    await refused();
    const stream = await getUserMedia(constraints);
    window.__opened.push(stream);
    return stream;
  };
})();
"""

TRACKS = "return (window.__opened ?? []).flatMap((stream) => stream.getTracks().map((track) => track.readyState));"


class ExpiredSeatTests(ConsoleTestCase):
    def test_a_refused_resume_leaves_no_camera_on(self):
        page = self.page("Host")
        page.join("Expired", "Hope", "host")
        page.wait(lambda: page.driver.execute_script("return window.caucusConsole?.media?.pc?.connectionState") == "connected",
                  "the console's media peer, connected")
        # A seat the server does not know: the same saved seat with another secret.
        page.driver.execute_script("""
            const seat = JSON.parse(sessionStorage.getItem("caucus.seat"));
            seat.secret = seat.secret.split("").reverse().join("");
            sessionStorage.setItem("caucus.seat", JSON.stringify(seat));
        """)
        held = page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": DEVICES_OPEN_AFTER_THE_REFUSAL})
        page.reload()
        page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": held["identifier"]})
        page.wait(lambda: "has expired" in page.driver.execute_script("return document.body.innerText"), "the refusal, shown")
        page.wait(lambda: page.driver.execute_script(TRACKS), "the devices, opened after the refusal")
        page.wait(lambda: all(state == "ended" for state in page.driver.execute_script(TRACKS)), "every track the page obtained, stopped")


if __name__ == "__main__":
    unittest.main()
