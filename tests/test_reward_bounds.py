"""One reader of a run's reward bounds (issue 15): the audit's check 7 and the stats loader
both read ``task.reward_bounds`` through :func:`prereg.records.recorded_reward_bounds`, so a
manifest shape one of them accepts the other cannot refuse (README failure 5)."""

from __future__ import annotations

import math

import pytest

from audit.checks.traces import reward_bounds as audit_bounds
from prereg.records import recorded_reward_bounds, task_record

USER_TASK = "mymod:make"   # no registered scorer: the audit has nothing to fall back to


def _m(bounds, *, top=None):
    m = {"task": {"name": "t", "reward_bounds": bounds, "item_metrics": {}}}
    if top is not None:
        m = {"reward_bounds": top}
    return m


GRID = {
    "list": (_m([-0.1, 1.6]), (-0.1, 1.6)),
    "ints": (_m([0, 1]), (0.0, 1.0)),
    "equal ends": (_m([0.5, 0.5]), (0.5, 0.5)),
    "dict min/max": (_m({"min": 0.0, "max": 1.0}), None),
    "top-level only": (_m(None, top=[0.0, 1.0]), None),
    "NaN": (_m([math.nan, 1.0]), None),
    "infinite": (_m([0.0, math.inf]), None),
    "reversed": (_m([1.0, 0.0]), None),
    "bool": (_m([False, True]), None),
    "three numbers": (_m([0.0, 1.0, 2.0]), None),
    "strings": (_m(["0", "1"]), None),
    "missing key": ({"task": {"name": "t", "item_metrics": {}}}, None),
    "no task": ({}, None),
    "task not a dict": ({"task": [0.0, 1.0]}, None),
    "manifest not a dict": ([0.0, 1.0], None),
}


@pytest.mark.parametrize("shape", sorted(GRID))
def test_audit_and_stats_read_the_same_bounds(shape):
    manifest, want = GRID[shape]
    assert recorded_reward_bounds(manifest) == want
    stats_read = task_record(manifest)   # what stats.load passes to metric_decls as reward_range
    assert (stats_read.reward_bounds if stats_read else None) == want
    if isinstance(manifest, dict):
        assert audit_bounds(manifest, USER_TASK) == want


@pytest.mark.parametrize("bad", [[1.0, 0.0], [math.nan, 1.0], [0.0, -math.inf]])
def test_a_reversed_or_nan_pair_is_ignored_by_both_and_the_audit_falls_back_to_the_scorer(bad):
    m = _m(bad)
    assert task_record(m) is None                      # stats: no task record, no reward range
    assert audit_bounds(m, USER_TASK) is None          # audit, user task: finiteness only
    assert audit_bounds(m, "connections") == (-0.1, 1.6)   # audit, registered task: the scorer's
    assert audit_bounds(_m([0.0, 5.0]), "connections") == (0.0, 5.0)   # a valid record wins
