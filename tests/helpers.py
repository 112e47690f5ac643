"""Test-side helpers that are not fixtures."""

from __future__ import annotations

import os
import signal
import subprocess

#: Seconds a process gets to print its stacks (faulthandler) before it is killed.
_DUMP_GRACE_S = 10


class Stalled(AssertionError):
    """A command outlived its deadline (an AssertionError, so pytest reports a failed test)."""


def run_bounded(cmd: list[str], timeout_s: float, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run`` with a deadline that ends the whole process tree and says where it was.

    The command runs in a process group of its own with Python's faulthandler on. On expiry
    the group is sent SIGABRT, so each Python process in it prints its stacks; the group is
    then killed and :class:`Stalled` is raised with the tail of what was printed. (Jupyter
    kernels and Playwright's browser run in sessions of their own and exit when their parent
    does.) A plain ``subprocess.run(timeout=...)`` would kill only the child.
    """
    env = {**kwargs.pop("env", os.environ), "PYTHONFAULTHANDLER": "1"}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL, start_new_session=True, env=env, **kwargs) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGABRT)
            try:
                stdout, stderr = proc.communicate(timeout=_DUMP_GRACE_S)
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
            _signal_group(proc.pid, signal.SIGKILL)  # anything the command left behind
            raise Stalled(f"{' '.join(map(str, cmd))} did not finish within {timeout_s:g} s.\n"
                          f"--- stdout (tail) ---\n{stdout[-4000:]}\n"
                          f"--- stderr (tail) ---\n{stderr[-8000:]}") from None
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:  # the group has already gone
        pass
