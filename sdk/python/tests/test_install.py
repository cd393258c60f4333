"""The README's promise: `pip install ./sdk/python`, then memory in five lines.

The package is installed with pip into a scratch directory and the README's
own snippet runs against a real `mnemon serve` from a directory that holds no
copy of the source, so a packaging mistake (a module left out of
pyproject.toml, a missing py.typed) or a README that drifted from the client
fails here.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import REPO, MnemonServer

SDK = os.path.join(REPO, "sdk", "python")


def readme_snippet() -> str:
    """The first python block after the README's 'A Python developer' line."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    at = text.find("A Python developer")
    if at < 0:
        raise AssertionError("README.md no longer has the 'A Python developer' example")
    m = re.search(r"```python\n(.*?)```", text[at:], re.S)
    if not m:
        raise AssertionError("README.md's Python example has no python block")
    return m.group(1)


class InstallTest(unittest.TestCase):
    def setUp(self) -> None:
        if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
            self.skipTest("python3 has no venv/ensurepip: cannot make a fresh environment")
        self.dir = tempfile.mkdtemp(prefix="mnemon-pip-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def test_readme_snippet_after_pip_install(self) -> None:
        # A fresh virtual environment holds pip and nothing else (no
        # setuptools, no wheel), and --no-index forbids any download: the
        # in-tree build backend must build the package on its own.
        venv = os.path.join(self.dir, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True, timeout=300)
        py = os.path.join(venv, "bin", "python")
        pip = subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-index", SDK],
                             capture_output=True, text=True, timeout=300, cwd=self.dir)
        self.assertEqual(pip.returncode, 0, "pip install failed:\n" + pip.stdout + pip.stderr)
        where = subprocess.run([py, "-c", "import mnemon, os; print(os.path.dirname(mnemon.__file__))"],
                               capture_output=True, text=True, timeout=60, cwd=self.dir)
        installed = where.stdout.strip()
        self.assertTrue(installed.startswith(venv), "mnemon imported from %r, not the venv" % installed)
        for rel in ("py.typed", "client.py", os.path.join("integrations", "langchain.py")):
            self.assertTrue(os.path.exists(os.path.join(installed, rel)), rel + " not installed")

        server = MnemonServer()
        self.addCleanup(server.stop)
        snippet = readme_snippet().replace("http://127.0.0.1:7077", server.url)
        env = {k: v for k, v in os.environ.items() if k not in ("MNEMON_API_KEY", "PYTHONPATH")}
        run = subprocess.run([py, "-c", snippet], cwd=self.dir, env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, "README snippet failed:\n" + run.stdout + run.stderr)
        self.assertIn("make ship", run.stdout, "the snippet's retrieve did not return what it remembered")


if __name__ == "__main__":
    unittest.main()
