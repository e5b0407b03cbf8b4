"""A helper program spoken to in JSON lines: the network lab's students and the aiortc peers that
run in processes of their own."""

import json
import queue
import subprocess
import threading

ANSWER_SECONDS = 90


class JSONLinesProcess:
    """A program that answers each JSON line on its stdin with one on its stdout (lines that are
    not JSON answers are kept as its log). `host` starts it (its `popen`: a lab namespace's);
    None starts it here."""

    def __init__(self, host, argv, env=None):
        popen = host.popen if host is not None else subprocess.Popen
        self.process = popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.answers = queue.Queue()
        self.log = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            try:
                self.answers.put(json.loads(line))
            except json.JSONDecodeError:
                self.log.append(line)
        self.answers.put(None)

    def answer(self, timeout=ANSWER_SECONDS):
        try:
            answer = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s; its log:\n{''.join(self.log[-40:])}") from None
        if answer is None:
            raise AssertionError(f"it exited ({self.process.poll()}); its log:\n{''.join(self.log[-40:])}")
        return answer

    def ask(self, request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self.answer()

    def stop(self, request):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(json.dumps(request) + "\n")
                self.process.stdin.close()
                self.process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
