"""Results remembered by content stay exact: a preregistration validated once is answered from
memory only for a document equal in every value, type and key order, so a tampered or edited copy
read after the original is still refused (README failure 1: the locked study is the one checked);
the sequential design solved once is the design solved afresh (README failure 19), and the
boundary recursion's normal density is scipy's to the bit."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from prereg import schema as S
from prereg.errors import UserError
from prereg.lock import build_lock, verify_data

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())


def _fresh(doc, name):
    """What the memo would answer, computed without it."""
    return S._validate(doc, name)


def test_a_valid_preregistration_is_remembered_and_answers_the_same():
    doc = copy.deepcopy(DEMO)
    assert S.schema_errors(doc, "preregistration") == [] == _fresh(doc, "preregistration")
    assert ("preregistration", S._content_key(doc)) in S._MEMO
    assert S.schema_errors(copy.deepcopy(doc), "preregistration") == []


@pytest.mark.parametrize("edit", [
    lambda d: d.update(seeds=[1.0 * s for s in d["seeds"]]),   # 1 -> 1.0: the schema wants integers
    lambda d: d.update(seeds=[True] + d["seeds"][1:]),          # True == 1 in Python, not in JSON
    lambda d: d["analysis"].update(primary_metric=7),
    lambda d: d.pop("arms"),
], ids=["int-to-float", "int-to-bool", "wrong-type", "field-removed"])
def test_an_edited_copy_is_refused_after_the_original_was_remembered(edit):
    doc = copy.deepcopy(DEMO)
    assert S.schema_errors(doc, "preregistration") == []
    bad = copy.deepcopy(doc)
    edit(bad)
    assert bad == doc or S._content_key(bad) != S._content_key(doc)
    errs = S.schema_errors(bad, "preregistration")
    assert errs and errs == _fresh(bad, "preregistration")
    assert S.schema_errors(doc, "preregistration") == []


@pytest.mark.parametrize("a,b", [
    ({"x": 1, "y": 2}, {"y": 2, "x": 1}), ([1], [1.0]), ([1], [True]), ([1], (1,)), ([None], [float("nan")]),
    ([0.0], [-0.0]), (["a"], ["a "]), ({"k": [1, 2]}, {"k": [2, 1]}),
], ids=["key-order", "int-float", "int-bool", "list-tuple", "none-nan", "zero-sign", "string", "list-order"])
def test_documents_that_differ_in_any_value_type_or_order_have_different_keys(a, b):
    assert S._content_key(a) != S._content_key(b)
    assert S._content_key(a) == S._content_key(copy.deepcopy(a))
    assert S._content_key([object]) != S._content_key([])  # what pickle refuses or writes by reference still keys


def test_a_tampered_lock_is_refused_after_its_clean_twin_verified():
    lock = build_lock(copy.deepcopy(DEMO), now="2026-01-01T00:00:00.000000Z")
    verify_data(lock, "clean.lock.json")
    bad = copy.deepcopy(lock)
    bad["preregistration"]["seeds"] = [float(s) for s in bad["preregistration"]["seeds"]]
    with pytest.raises(UserError, match=r"tampered\.lock\.json \(preregistration\): \$\.seeds"):
        verify_data(bad, "tampered.lock.json")


def test_the_memo_is_bounded(monkeypatch):
    """The bound as the code applies it, at a small size (validating 256 documents costs ~1 CPU-s)."""
    monkeypatch.setattr(S, "_MEMO_MAX", 8)
    doc = copy.deepcopy(DEMO)
    sizes = []
    for i in range(S._MEMO_MAX + 5):
        doc["id"] = f"memo-{i}"
        S.schema_errors(doc, "preregistration")
        sizes.append(len(S._MEMO))
    assert max(sizes) == S._MEMO_MAX and len(S._MEMO) <= S._MEMO_MAX


def test_cached_design_equals_a_fresh_solve():
    from prereg.seqdesign import SequentialPlan, design
    from prereg.sequential import Spec

    p = SequentialPlan((4, 8), Spec(), "t_tail", 1000, "stagewise", 0.05, 2, 1, 0, ("a-b",), None, None)
    assert design(p) is design(p)
    assert design(p) == design.__wrapped__(p)
    q = SequentialPlan((4, 8), Spec(), "t_tail", 1000, "stagewise", 0.01, 2, 1, 0, ("a-b",), None, None)
    assert design(q).t_upper != design(p).t_upper  # another plan is another solve, not a stale answer


def test_boundary_density_is_scipys_to_the_bit():
    from scipy.stats import norm

    from prereg.sequential import _norm_pdf

    z = np.random.default_rng(0).normal(size=(64, 48)) * 6
    z[0, :3] = [np.inf, -np.inf, 0.0]
    assert np.array_equal(_norm_pdf(z), norm.pdf(z))
