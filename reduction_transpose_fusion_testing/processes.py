"""A fresh Python process for tests that need one (an import-time behaviour, the environment variables)."""

from __future__ import annotations

import os
import subprocess
import sys


# what a fresh process does not inherit from this one: ``TRITON_INTERPRET`` (a child that needs the fake device
# installs it itself) and ``TRITON_PTXAS_PATH``, which a timed candidate's compile sets in this process
# (``_torch_private.ptxas_as_the_workers``) where a user's process starts without it
NOT_INHERITED = ("TRITON_INTERPRET", "TRITON_PTXAS_PATH")


def child_environ() -> dict[str, str]:
    """This process's environment less :data:`NOT_INHERITED`, for a fresh process that starts as a user's would."""
    return {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}


def run_python(code: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    """Run ``python -c code`` with :func:`child_environ` plus ``env``, and ``stdin`` (text) on its standard input;
    capture stdout and stderr as text; time out after 600 s."""
    environ = child_environ() | env
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=environ,
                          timeout=600)
