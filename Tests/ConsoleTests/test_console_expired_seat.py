"""A reloaded page whose seat the server no longer holds (the resume is refused) goes back to
the landing and says so; and its camera and microphone, still opening when the refusal came
(a permission prompt answered late), go off again at once instead of staying on behind a
page that left the session; the refused socket is closed by the page at once. A page whose
dropped connection's resume is refused says so and stays closed: the calls made while it
reconnected fail with the refusal, and it does not go on opening sockets to resume a seat that
is gone."""

import time
import unittest

from console_support import CaucusServer, ConsoleTestCase

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

# Keeps every socket the page opens (run before the page's own scripts).
KEEP_SOCKETS = """
(() => {
  window.__socketList = [];
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      window.__socketList.push(this);
    }
  };
})();
"""

TRACKS = "return (window.__opened ?? []).flatMap((stream) => stream.getTracks().map((track) => track.readyState));"


class ExpiredSeatTests(ConsoleTestCase):
    @staticmethod
    def reload_with_a_seat_the_server_does_not_know(page, script):
        """Saves the same seat with another secret, reloads the page with `script` run before
        its own, and waits for the refusal to show."""
        page.driver.execute_script("""
            const seat = JSON.parse(sessionStorage.getItem("caucus.seat"));
            seat.secret = seat.secret.split("").reverse().join("");
            sessionStorage.setItem("caucus.seat", JSON.stringify(seat));
        """)
        added = page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
        page.reload()
        page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
        page.wait(lambda: "has expired" in page.driver.execute_script("return document.body.innerText"), "the refusal, shown")

    def test_a_refused_resume_leaves_no_camera_on(self):
        page = self.page("Host")
        page.join("Expired", "Hope", "host")
        page.wait(lambda: page.driver.execute_script("return window.caucusConsole?.media?.pc?.connectionState") == "connected",
                  "the console's media peer, connected")
        self.reload_with_a_seat_the_server_does_not_know(page, DEVICES_OPEN_AFTER_THE_REFUSAL)
        page.wait(lambda: page.driver.execute_script(TRACKS), "the devices, opened after the refusal")
        page.wait(lambda: all(state == "ended" for state in page.driver.execute_script(TRACKS)), "every track the page obtained, stopped")

    def test_a_refused_seat_closes_its_socket_at_once(self):
        page = self.page("Host")
        page.join("Gone", "Hope", "host")
        self.reload_with_a_seat_the_server_does_not_know(page, KEEP_SOCKETS)
        # Well within the server's join deadline (10 s), after which it would close it itself.
        time.sleep(2)
        states = page.driver.execute_script("return window.__socketList.map((socket) => socket.readyState)")
        self.assertTrue(states, "the reloaded page opened a socket to resume")
        self.assertEqual(states, [3] * len(states), "every socket the page opened is closed (WebSocket.CLOSED)")


JOIN_DEADLINE_SECONDS = 2


class RefusedResumeTests(ConsoleTestCase):
    @classmethod
    def setUpClass(cls):
        # A socket that has not joined is closed after this: the refused resume's socket too.
        cls.server = CaucusServer(arguments=["--join-deadline", str(JOIN_DEADLINE_SECONDS)])
        cls.browsers = []

    def test_a_refused_resume_closes_the_page_for_good(self):
        page = self.page("Host")
        counting = page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_SOCKETS})
        try:
            page.join("Refused", "Hope", "host")
        finally:
            page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": counting["identifier"]})
        # The connection drops holding a secret the server does not know: its resume is refused.
        # A chat sent while it reconnects waits for the resume, then fails with the refusal.
        page.driver.execute_script("""
            const connection = window.caucusConsole.connection;
            window.__queued = "not sent";
            connection.addEventListener("state", (event) => {
              if (event.detail !== "reconnecting" || window.__queued !== "not sent") return;
              window.__queued = "waiting";
              connection.request("chat", { text: "anyone?" }).then(() => { window.__queued = "sent"; }, (error) => { window.__queued = error.name; });
            });
            connection.secret = connection.secret.split("").reverse().join("");
            connection.socket.close();
        """)
        page.wait(lambda: "away too long" in page.driver.execute_script("return document.body.innerText"), "the refusal, shown")
        page.wait(lambda: page.driver.execute_script("return window.__queued") == "resumeRefused", "the waiting chat, failed with the refusal")
        opened = page.driver.execute_script("return window.__socketList.length")
        self.assertEqual(page.driver.execute_script("return window.caucusConsole.connection?.state ?? 'closed'"), "closed")
        # Past the refused socket's join deadline and the first retry's delay after it: no
        # socket more, and the page still says the seat is gone.
        time.sleep(JOIN_DEADLINE_SECONDS + 2)
        self.assertEqual(page.driver.execute_script("return window.__socketList.length"), opened)
        self.assertIn("away too long", page.driver.execute_script("return document.body.innerText"))


if __name__ == "__main__":
    unittest.main()
