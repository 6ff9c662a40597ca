"""``stats.load.items_from_rows`` reorders columns instead of rows and sorts unique item ids as
strings: the result (ids, per-item vectors, tasks, the error naming a bad value) is the same as
sorting the rows by (item id, index) first, which is what the analysis has always read."""

from __future__ import annotations

from operator import itemgetter

import numpy as np
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from prereg.errors import UserError
from stats.load import ITEM_FIELD, ItemOrder, items_from_rows


def _reference(rows, path, tasks):
    """The rows sorted by (item id, index), then read column by column (the code before)."""
    idx = [r.get("index") for r in rows]
    ids = [str(r.get("item_id", i)) for r, i in zip(rows, idx, strict=True)]
    keys = list(zip(ids, idx if None not in idx else [r.get("index", 0) for r in rows], strict=True))
    order = sorted(range(len(rows)), key=keys.__getitem__)
    rows, ids = [rows[i] for i in order], [ids[i] for i in order]
    items = {}
    for metric, fld in ITEM_FIELD.items():
        vals = [r.get(fld) for r in rows]
        if None not in vals:
            try:
                items[metric] = np.asarray([float(v) for v in vals], dtype=float)
            except (TypeError, ValueError):
                bad = next(v for v in vals if not isinstance(v, (int, float, bool)))
                raise UserError(f"{path}: {fld} {bad!r:.60} is not a number") from None
    return ids, items, ([str(r.get("task")) for r in rows] if tasks else None)


def _outcome(fn, rows, tasks):
    try:
        ids, items, names = fn(rows, "t.jsonl", tasks)
    except (UserError, TypeError) as exc:
        return type(exc), str(exc)
    return ids, {k: (v.dtype, v.tolist()) for k, v in items.items()}, names


_value = st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.sampled_from(["x", [1], None])
_row = st.fixed_dictionaries(
    {"index": st.integers(0, 6)},
    optional={"item_id": st.sampled_from(["a", "b", "item-10", "item-2", "q"]) | st.integers(0, 3),
              "correct": _value, "reward": _value, "task": st.sampled_from(["t1", "t2"])})


@settings(max_examples=examples(ci=600, dev=80), deadline=None)
@given(rows=st.lists(_row, max_size=12), tasks=st.booleans())
def test_same_as_sorting_the_rows_first(rows, tasks):
    want = _outcome(_reference, rows, tasks)
    assert _outcome(items_from_rows, rows, tasks) == want
    # with the columns taken by the caller (the audit's check 7 shares its own)
    shared = _outcome(lambda r, p, t: items_from_rows(r, p, t, column=lambda k: [x.get(k) for x in r]), rows, tasks)
    assert shared == want


@settings(max_examples=examples(ci=300, dev=60), deadline=None)
@given(rows=st.lists(_row, max_size=12), other=st.lists(_row, max_size=12), tasks=st.booleans())
def test_a_shared_item_order_reads_each_trace_as_if_alone(rows, other, tasks):
    """The audit shares one ItemOrder over 1,000 traces: its remembered order is reused only for
    a trace with the same ids and indices."""
    order_of = ItemOrder()
    for trace in (rows, other, rows, [dict(r) for r in rows], other):
        got = _outcome(lambda r, p, t: items_from_rows(r, p, t, order_of=order_of), trace, tasks)
        assert got == _outcome(_reference, trace, tasks)


def test_the_remembered_order_is_not_reused_when_an_index_moves():
    first = [{"index": 0, "item_id": "a", "reward": 0.0}, {"index": 1, "item_id": "a", "reward": 1.0}]
    moved = [{"index": 1, "item_id": "a", "reward": 0.0}, {"index": 0, "item_id": "a", "reward": 1.0}]
    order_of = ItemOrder()
    assert items_from_rows(first, "t", False, order_of=order_of)[1]["heldout_reward_mean"].tolist() == [0.0, 1.0]
    assert items_from_rows(moved, "t", False, order_of=order_of)[1]["heldout_reward_mean"].tolist() == [1.0, 0.0]
    same = [dict(r, reward=r["reward"] + 2) for r in first]  # same ids and indices: the order is reused
    assert items_from_rows(same, "t", False, order_of=order_of)[1]["heldout_reward_mean"].tolist() == [2.0, 3.0]


def test_a_clean_trace_in_string_id_order():
    rows = [{"index": i, "item_id": f"item-{i}", "correct": i % 3 == 0, "reward": float(i % 3 == 0)}
            for i in range(12)]
    ids, items, _ = items_from_rows(rows, "t", False)
    assert ids == sorted(f"item-{i}" for i in range(12))  # item-10 before item-2
    want = [float(int(i.split("-")[1]) % 3 == 0) for i in ids]
    assert items["heldout_accuracy"].tolist() == want == items["heldout_reward_mean"].tolist()
    assert _outcome(items_from_rows, rows, True) == _outcome(_reference, rows, True)


def test_the_first_bad_value_in_item_order_is_named():
    rows = [{"index": 0, "item_id": "b", "correct": "late", "reward": 1.0},
            {"index": 1, "item_id": "a", "correct": [1], "reward": 0.0}]
    with pytest.raises(UserError, match=r"t: correct \[1\] is not a number"):
        items_from_rows(rows, "t", False)
    assert list(map(itemgetter("item_id"), rows)) == ["b", "a"]  # the caller's rows are not reordered
