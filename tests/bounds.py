"""Bounds on work that hold on any machine at any load.

A test that says "this ends" bounds CPU time, not wall-clock seconds: on a 2-core machine at load 20 a process gets a
tenth of a core, so a wall-clock bound either flakes there or is too loose to catch anything on an idle machine.
CPU time is counted for a whole process tree (the process, its live descendants and the descendants it reaped), read
from /proc while it runs and from the kernel's rusage once it is reaped.

Wall-clock time appears only as a guard against a true hang: every `GUARD_FACTOR` × the CPU bound of wall time the
tree's CPU time is read; a tree over its CPU bound is a hang, and a tree whose CPU time did not move at all over the
whole window is blocked (a process that is only starved of CPU still gets some of it in that time). A tree that is
merely slow is waited for.
"""
from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

import pytest

GUARD_FACTOR = 10  # wall seconds of a guard window per CPU second of the bound
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                kids = Path(f"/proc/{p}/task/{t}/children").read_text().split()
            except OSError:
                continue
            for k in kids:
                found.append(int(k))
                todo.append(int(k))
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by `pid`, its live descendants, and the descendants they reaped (Linux /proc)."""
    total = 0
    for p in (pid, *_descendants(pid)):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended between the listing and the read
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / _TICK


def children_cpu_seconds() -> float:
    """CPU seconds of this process's reaped children (and what they reaped), as the kernel counts them."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_and_children_cpu_seconds() -> float:
    """CPU seconds of this process and of its reaped children: the work of an in-process call that forks workers."""
    return time.process_time() + children_cpu_seconds()


def _guard(proc: subprocess.Popen, cpu_seconds: float, last: float, what: str) -> float:
    """One guard window passed with `proc` still running: fail on a hang or a block, else return the CPU so far."""
    used = tree_cpu_seconds(proc.pid)
    if used > cpu_seconds or used == last:
        proc.kill()
        proc.communicate()
        why = (f"used {used:.1f} s of CPU, over its bound of {cpu_seconds} s: it hangs" if used > cpu_seconds else
               f"used no CPU over {GUARD_FACTOR * cpu_seconds:.0f} s of wall time: it is blocked")
        pytest.fail(f"{what} {why}")
    return used


def wait_bounded(proc: subprocess.Popen, cpu_seconds: float, what: str = "the command",
                 input: str | bytes | None = None) -> tuple:
    """`proc.communicate()`, failing when the process tree hangs (over `cpu_seconds` of CPU) or blocks, never
    because the machine is slow; and failing when it ends having used more than `cpu_seconds` of CPU."""
    before = children_cpu_seconds()
    last = -1.0
    while True:
        try:
            out = proc.communicate(input=input, timeout=GUARD_FACTOR * cpu_seconds)
            break
        except subprocess.TimeoutExpired:
            input = None  # communicate sends its input once
            last = _guard(proc, cpu_seconds, last, what)
    used = children_cpu_seconds() - before
    assert used <= cpu_seconds, f"{what} used {used:.1f} s of CPU, over its bound of {cpu_seconds} s"
    return out


def run_bounded(cmd, cpu_seconds: float, *, capture_output: bool = True, text: bool = True,
                **kwargs) -> subprocess.CompletedProcess:
    """`subprocess.run` with a CPU bound on the command's process tree in place of a wall-clock timeout."""
    if capture_output:
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.Popen(cmd, text=text, **kwargs)
    out, err = wait_bounded(proc, cpu_seconds, what=f"{cmd[0] if isinstance(cmd, list) else cmd}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def poll_bounded(done, proc: subprocess.Popen, cpu_seconds: float, what: str, interval: float = 0.002) -> None:
    """Poll `done()` while `proc` runs; fail once its tree has used `cpu_seconds` of CPU without `done()` coming
    true, or once its CPU stood still for a whole guard window (blocked). Returns when done or when proc ended."""
    last, window_start = tree_cpu_seconds(proc.pid), time.monotonic()
    while not done() and proc.poll() is None:
        used = tree_cpu_seconds(proc.pid)
        if used > cpu_seconds:
            proc.kill()
            proc.wait()
            pytest.fail(f"{what}: not seen after {used:.1f} s of CPU (bound {cpu_seconds} s)")
        if time.monotonic() - window_start > GUARD_FACTOR * cpu_seconds:
            if used == last:
                proc.kill()
                proc.wait()
                pytest.fail(f"{what}: the process used no CPU over {GUARD_FACTOR * cpu_seconds:.0f} s: it is blocked")
            last, window_start = used, time.monotonic()
        time.sleep(interval)


def wait_gone(pids, alive, cpu_seconds: float, what: str) -> list[int]:
    """Wait for processes that are not our children to end; return those still alive once they used `cpu_seconds`
    of CPU between them, or once their CPU stood still for a whole guard window (blocked: they will not end)."""
    start = last = sum(tree_cpu_seconds(p) for p in pids)
    window_start = time.monotonic()
    while any(alive(p) for p in pids):
        used = sum(tree_cpu_seconds(p) for p in pids if alive(p))
        if used - start > cpu_seconds:
            break
        if time.monotonic() - window_start > GUARD_FACTOR * cpu_seconds:
            if used == last:
                break
            last, window_start = used, time.monotonic()
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def start_ray(ray, tries: int = 3) -> None:
    """`ray.init` for a test. Ray waits a fixed 30 wall-clock seconds for its GCS and raylet to come up, which a loaded
    machine can exceed without anything being wrong (0.8.0's suite failed so at load 20): the GCS wait is raised through
    Ray's own setting, and a start-up that still times out is retried (nothing of the failed start is kept)."""
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "600")
    for attempt in range(tries):
        try:
            ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
            return
        except Exception as e:  # noqa: BLE001 - Ray raises a bare Exception for a slow start
            if "timed out during startup" not in str(e) or attempt == tries - 1:
                raise
            ray.shutdown()
