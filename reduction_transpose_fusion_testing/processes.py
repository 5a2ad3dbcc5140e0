"""A fresh Python process for tests that need one (an import-time behaviour, the environment variables)."""

from __future__ import annotations

import os
import subprocess
import sys


def run_python(code: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    """Run ``python -c code`` with this process's environment, less ``TRITON_INTERPRET`` (a child that needs the fake
    device installs it itself), plus ``env``, and ``stdin`` (text) on its standard input; capture stdout and stderr as
    text; time out after 600 s."""
    environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | env
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=environ,
                          timeout=600)
