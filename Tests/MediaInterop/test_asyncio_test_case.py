"""The interop tests' own rule (docs/testing.md): every test class that runs on an event loop
derives from `AsyncioTestCase`, whose loop runs without asyncio's debug mode. A class deriving
from unittest's `IsolatedAsyncioTestCase` directly would run in debug mode again, which starved
the four-peer test process until aioice closed its peers."""

import ast
import asyncio
import unittest
from pathlib import Path

from asyncio_test_case import AsyncioTestCase

HERE = Path(__file__).resolve().parent


class AsyncioTestCaseRuleTests(unittest.TestCase):
    def test_no_test_class_derives_from_isolated_asyncio_test_case_directly(self):
        offenders = []
        for path in sorted(HERE.glob("*.py")):
            if path.name == "asyncio_test_case.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.ClassDef):
                    bases = [ast.unparse(base) for base in node.bases]
                    if any(base.endswith("IsolatedAsyncioTestCase") for base in bases):
                        offenders.append(f"{path.name}: {node.name}({', '.join(bases)})")
        self.assertEqual(offenders, [], "derive from AsyncioTestCase instead (asyncio_test_case.py)")

    def test_its_loop_runs_without_debug_mode(self):
        seen = {}

        class Probe(AsyncioTestCase):
            async def test_probe(self):
                seen["debug"] = asyncio.get_running_loop().get_debug()

        result = unittest.TestResult()
        Probe("test_probe").run(result)
        self.assertEqual((result.errors, result.failures), ([], []))
        self.assertIs(seen["debug"], False)


if __name__ == "__main__":
    unittest.main()
