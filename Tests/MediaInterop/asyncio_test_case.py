"""The base of the media interop tests that run on an event loop: unittest's
IsolatedAsyncioTestCase with asyncio's debug mode off.

IsolatedAsyncioTestCase turns debug mode on. It records a stack trace for every callback and
every future the loop makes, which with four aiortc peers in one process took about a third
of that process's time (`py-spy record --gil` on test_media_rooms). The process then fell so
far behind its sockets that aioice's consent checks (one request each, answered within 0.5 s
or counted lost) failed about two times in three, and after six in a row aioice closed a
peer: a failure of the test process, not of the server. Without debug mode the same test runs
in under half the time and nearly every check is answered in time. What a test asserts does
not change."""

import asyncio
import unittest


class AsyncioTestCase(unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        super().setUp()
        # The test's own loop: IsolatedAsyncioTestCase makes it current before setUp.
        asyncio.get_event_loop().set_debug(False)
