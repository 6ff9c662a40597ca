"""The audit's per-run work spread over forked worker processes, results in run order.

An audit of 1,000 runs spends most of its time on work that is independent from run to run
(check 7 parses ~1M trace rows). :func:`map_runs` hands contiguous chunks of runs to
``jobs`` worker processes and returns the results in input order, so whatever the caller
builds from them (findings, kept per-item arrays) is identical to the serial path's.

Workers are *forked*: the function and its inputs (the audit context, every manifest) are
inherited, never pickled; only each chunk's results travel back. Below :data:`MIN_RUNS`
items, with ``jobs`` 1, or off Linux (:func:`can_fork`) the same function runs in
this process, so a small audit pays nothing. An exception raised in a worker is raised here
(a :class:`prereg.errors.UserError` keeps its one-line message; the CLI exits 2 as for any
bad input); a worker that dies is a ``BrokenProcessPool`` error, never a hang.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from prereg.errors import UserError

T = TypeVar("T")
R = TypeVar("R")

JOBS_ENV = "RLPREREG_AUDIT_JOBS"
# Below this many runs the pool's start (forking, ~20-40 ms on 2 cores) costs more than the
# ~3 ms a run check 7 saves per worker.
MIN_RUNS = 48
CHUNKS_PER_WORKER = 4  # a few chunks each, so one slow chunk does not leave a core idle


def default_jobs() -> int:
    """Worker processes for an audit: ``$RLPREREG_AUDIT_JOBS`` when set, else the CPUs this
    process may run on.

    Returns:
        A whole number >= 1.
    Raises:
        UserError: the variable is set to something that is not a whole number >= 1.
    Example:
        >>> default_jobs() >= 1
        True
    """
    raw = os.environ.get(JOBS_ENV)
    if raw is not None and raw.strip():
        return check_jobs(raw, JOBS_ENV)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(value, name: str = "--jobs") -> int:
    """``value`` as a number of worker processes, or a one-line error naming ``name``.

    Example:
        >>> check_jobs("2")
        2
    """
    try:
        n = int(str(value).strip())
    except ValueError:
        n = 0
    if n < 1:
        raise UserError(f"{name} {value!r}: expected a whole number of worker processes, 1 or more")
    return n


def can_fork() -> bool:
    """Whether worker processes are forked here: on Linux only (Windows has no fork, and on macOS
    system frameworks are not safe across a fork, which is why Python starts processes there by
    ``spawn``, which would pickle the whole audit)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def map_runs(fn: Callable[[T], R], items: Sequence[T], *, jobs: int, min_items: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, computed by up to ``jobs`` forked workers when there are
    at least ``min_items`` (default :data:`MIN_RUNS`) items.

    Args:
        fn: the per-item work; it may read anything this process holds (the workers are forked)
            but what it changes outside its return value stays in the worker. Its results must
            pickle.
        items: the inputs, in the order the results are wanted.
        jobs: worker processes at most (1: run here).
        min_items: fewer items than this run here.
    Returns:
        One result per item, in ``items`` order, equal to the serial path's.
    Raises:
        Whatever ``fn`` raised for the first failing chunk (a UserError keeps its message);
        ``concurrent.futures.process.BrokenProcessPool`` when a worker dies.
    Example:
        >>> map_runs(abs, [-1, 2, -3], jobs=2)
        [1, 2, 3]
    """
    items = list(items)
    floor = MIN_RUNS if min_items is None else min_items
    workers = min(jobs, len(items))
    if workers <= 1 or len(items) < floor or not can_fork():
        return [fn(x) for x in items]
    n = min(len(items), workers * CHUNKS_PER_WORKER)
    bounds = [(len(items) * i // n, len(items) * (i + 1) // n) for i in range(n)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                             initializer=_inherit, initargs=(fn, items)) as pool:
        parts = list(pool.map(_run_chunk, bounds))
    return [r for part in parts for r in part]


def in_background(fn: Callable[[], R], *, jobs: int) -> Callable[[], R]:
    """Start ``fn()`` in one forked worker now and return a function that waits for its result,
    so this process can do other work meanwhile; with ``jobs`` 1 (or no ``fork``) ``fn()`` runs
    here, now.

    Args:
        fn: work whose effects outside its return value nobody needs (they stay in the worker).
        jobs: worker processes allowed; 1 runs ``fn`` here.
    Returns:
        A function returning ``fn()``'s result (raising what ``fn`` raised); call it once.
    Example:
        >>> wait = in_background(lambda: 6 * 7, jobs=2)
        >>> wait()
        42
    """
    if jobs <= 1 or not can_fork():
        value = fn()
        return lambda: value
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"),
                               initializer=_inherit, initargs=(lambda _: fn(), [None]))
    future = pool.submit(_run_chunk, (0, 1))

    def wait():
        try:
            return future.result()[0]
        finally:
            pool.shutdown()
    return wait


# In a worker only: the function and items handed over at fork (never pickled).
_WORK: tuple | None = None


def _inherit(fn, items) -> None:
    global _WORK
    _WORK = (fn, items)


def _run_chunk(bounds: tuple[int, int]) -> list:
    fn, items = _WORK
    lo, hi = bounds
    return [fn(x) for x in items[lo:hi]]
