"""Recording in the console with real media (issue 40): Chromiums with fake camera and
microphone publish in a recorded main session of a server whose app may keep only a little
recording (`--recording-quota`). The server writes the publishers' files, then stops recording
on its own when the quota is used up: the host's Recording card says why and keeps saying it,
the participant's "being recorded" banner goes and a notice tells him why, and the files the
server wrote are on disk, named in the timeline, which ends with the reason."""
import json
import pathlib
import unittest

from console_support import CaucusServer, ConsoleTestCase, css_for

SESSION = "Quota"
QUOTA = "200K"


class RecordingQuotaTests(ConsoleTestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = CaucusServer(arguments=["--recording-quota", QUOTA])
        cls.browsers = []

    def timeline(self):
        """The main session's timeline lines, from the server's data folder."""
        paths = list(pathlib.Path(self.server.data, "recordings").glob("*/main/timeline.jsonl"))
        if not paths:
            return []
        return [json.loads(line) for line in paths[0].read_text().splitlines() if line.strip()]

    def test_the_quota_stops_recording_and_the_host_and_the_recorded_are_told_why(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join(SESSION, "Ann", "host")
        bo.join(SESSION, "Bo", "participant")
        stopped = css_for("recording-stopped")
        self.assertEqual(host.text(stopped), "", "a stop shown before any recording")

        host.click(css_for("record-main"))
        bo.wait_text(css_for("recording-indicator"), "The main session is being recorded.")
        # The pages' cameras fill the quota within seconds; the server stops on its own.
        host.wait_text(stopped, "Recording stopped: The recording quota of this app is used up.")
        self.assertEqual(host.find(stopped).get_attribute("role"), "status")
        bo.wait_gone(css_for("recording-indicator"), "Bo's banner to go when the server stops recording")
        bo.wait_text(css_for("notices"), "The recording quota of this app is used up.")
        host.wait_text(css_for("recording-status"), "Nothing is being recorded.")

        lines = self.timeline()
        self.assertEqual(lines[0]["event"], "recordingStarted")
        self.assertEqual(lines[-1], {**lines[-1], "event": "recordingStopped", "reason": "quotaExceeded"})
        started = [line for line in lines if line["event"] == "fileStarted"]
        self.assertTrue({"audio", "video"} <= {line["kind"] for line in started}, f"the pages' media was not recorded: {started}")
        folder = next(pathlib.Path(self.server.data, "recordings").glob("*/main"))
        for line in started:
            self.assertTrue((folder / line["file"]).stat().st_size > 0, f"{line['file']} is empty")

        # The session goes on, and the notice stays until the host starts or stops again.
        bo.send_chat("Still here")
        host.wait_text(css_for("chat-log"), "Bo: Still here")
        self.assertIn("quota", host.text(stopped))
        for page in self.pages:
            page.assert_no_error()


if __name__ == "__main__":
    unittest.main()
