"""The deadline helper the smoke and browser tests run their commands under."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from helpers import Stalled, run_bounded

HANGS = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stderr=subprocess.DEVNULL)
print(child.pid, flush=True)
time.sleep(600)
"""


def _running(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except FileNotFoundError:
        return False


def test_a_finished_command_is_returned_as_is():
    done = run_bounded([sys.executable, "-c", "import sys; print('out'); sys.exit(3)"], 60)
    assert (done.returncode, done.stdout) == (3, "out\n")


def test_a_hung_command_fails_with_its_stack_and_leaves_nothing_running():
    start = time.perf_counter()
    with pytest.raises(Stalled) as failure:
        run_bounded([sys.executable, "-c", HANGS], 3)
    assert time.perf_counter() - start < 30
    message = str(failure.value)
    assert "did not finish within 3 s" in message
    assert 'File "<string>", line 5 in <module>' in message  # faulthandler's stack of the sleep
    grandchild = int(message.split("--- stdout (tail) ---\n")[1].split()[0])
    deadline = time.monotonic() + 10
    while _running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(grandchild)
