"""Evaluate with room on CPython's frame stack, so that the time of an evaluation follows the steps it is charged.

CPython 3.11 and 3.12 keep Python frames in chunks (16 KiB at first), allocated with mmap when a call does not fit in
the current chunk and unmapped as soon as the first frame of a chunk returns. A recursion that goes up and down across
the end of a chunk therefore pays an mmap, a page fault and an munmap on every call (CPython issue gh-142183, fixed in
later releases by keeping one spare chunk). Evaluation recurses: every named function call, lambda and operator is a
Python call, so `e_i = x -> e_{i-1}(e_{i-1}(x))` runs at a depth that grows with i, and at the depth where its leaves
straddle a chunk end each charged step cost 10–100 times its usual time (0.8.0: depth 28 took 3.8 s an attempt, depth
30 over 60 s, at the same 2,000,000 charged steps; which depth depends on how deep the caller already was).

`with_headroom` runs an evaluation from a frame that reserves a 2 MiB chunk and leaves about 950 KiB of it free above
itself: a code object whose stack is declared ~1.1 MiB deep (`code.replace(co_stacksize=...)`, no generated source;
the reserved slots are never written, so untouched pages cost nothing). Evaluation frames are small and their depth is
held under Python's recursion limit (compile.MAX_EXPANDED_DEPTH), so all of them fit in that room and no call of the
evaluation crosses a chunk end. The chunk is mapped once per evaluation (a state attempt, a program run, a scene) and
nested evaluations run in the room already reserved.
"""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

# Slots (8 bytes each) the reserving frame declares. CPython sizes a new chunk as the power of two that holds the frame
# plus 1,000 slots: 140,000 slots (1.07 MiB) take a 2 MiB chunk and leave about 950 KiB for the frames above.
HEADROOM_SLOTS = 140_000

_local = threading.local()
F = TypeVar("F", bound=Callable[..., Any])


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


_call.__code__ = _call.__code__.replace(co_stacksize=_call.__code__.co_stacksize + HEADROOM_SLOTS)


def with_headroom(fn: F) -> F:
    """Decorate an evaluation entry point (sample_state, run_program, draw_scene): it runs from the reserving frame,
    unless an entry point further up this thread's stack reserved the room already."""

    @functools.wraps(fn)
    def entry(*args, **kwargs):
        if getattr(_local, "inside", False):
            return fn(*args, **kwargs)
        _local.inside = True
        try:
            return _call(fn, args, kwargs)
        finally:
            _local.inside = False

    return entry  # type: ignore[return-value]


__all__ = ["HEADROOM_SLOTS", "with_headroom"]
