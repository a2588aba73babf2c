"""The README's examples, run as they are written against the platform."""

from __future__ import annotations

import contextlib
import io
import os
import re
import unittest

from support import platform_missing

SKIP = platform_missing()
README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


@unittest.skipIf(SKIP is not None, SKIP or "")
class ReadmeTest(unittest.TestCase):
    def test_every_python_example_runs(self) -> None:
        with open(README, encoding="utf-8") as handle:
            blocks = re.findall(r"```python\n(.*?)```", handle.read(), flags=re.DOTALL)
        self.assertGreaterEqual(len(blocks), 6)
        scope: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            for block in blocks:  # one scope, as a reader pasting them in order would have
                exec(compile(block, README, "exec"), scope)  # noqa: S102 (our own README)
        self.assertIn("ready", printed.getvalue())


if __name__ == "__main__":
    unittest.main()
