"""The analysis schema's compiled fast path for value records (prereg.schema._compile) accepts
exactly what jsonschema accepts: any record it cannot prove valid sends the document to the full
validator, so the errors are always the full validator's (README failure 10: a malformed
analysis is refused before the audit reads it)."""

from __future__ import annotations

import copy

import pytest

from prereg import schema as S
from prereg.values import value_problems


def _full_errors(doc) -> list[str]:
    """What _schema_errors gave before the fast path: value problems plus every jsonschema error."""
    errs = value_problems(doc)
    for e in S._validator("analysis").iter_errors(doc):
        msg = e.message if len(e.message) <= 200 else e.message[:197] + "..."
        errs.append(f"{S.json_path(e.absolute_path)}: {msg}")
    return sorted(set(errs))


@pytest.fixture(scope="module")
def analysis(clean_campaign):
    from prereg.jsonio import read_json

    return read_json(clean_campaign.report / "analysis.json")


def _first(doc):
    return next(iter(doc["values"]))


MUTATIONS = {
    "value a string": lambda v: v.update(value="0.5"),
    "value a list": lambda v: v.update(value=[1]),
    "method missing": lambda v: v.pop("method"),
    "method a number": lambda v: v.update(method=3),
    "unit not in enum": lambda v: v.update(unit="percentage"),
    "unit an integer": lambda v: v.update(unit=1),
    "params a list": lambda v: v.update(params=[]),
    "inputs a string": lambda v: v.update(inputs="seal"),
    "an input a number": lambda v: v.update(inputs=["a" * 64, 7]),
    "rng_seed a float": lambda v: v.update(rng_seed=1.0),
    "rng_seed a bool": lambda v: v.update(rng_seed=True),
    "note a number": lambda v: v.update(note=1),
    "record a list": None,
}


def test_clean_analysis_takes_the_fast_path(analysis):
    assert S._records_valid(analysis, "analysis") is not None
    assert S._schema_errors(analysis, "analysis") == _full_errors(analysis) == []


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_bad_record_gets_the_full_validators_errors(analysis, case):
    doc = copy.deepcopy(analysis)
    vid = _first(doc)
    if MUTATIONS[case] is None:
        doc["values"][vid] = [doc["values"][vid]]
    else:
        MUTATIONS[case](doc["values"][vid])
    assert S._records_valid(doc, "analysis") is None
    errs = S._schema_errors(doc, "analysis")
    assert errs and errs == _full_errors(doc)
    assert any(f"$.values.{vid}" in e for e in errs), errs


@pytest.mark.parametrize("key", ["bad id", "x\n", "é", ""])
def test_bad_value_id_gets_the_full_validators_errors(analysis, key):
    doc = copy.deepcopy(analysis)
    doc["values"][key] = doc["values"][_first(doc)]
    assert S._records_valid(doc, "analysis") is None
    errs = S._schema_errors(doc, "analysis")
    assert errs and errs == _full_errors(doc)


def test_errors_outside_the_records_still_found(analysis):
    doc = copy.deepcopy(analysis)
    doc["baseline"] = 3
    doc["inputs"]["runs"][0]["seed"] = 1.0
    assert S._records_valid(doc, "analysis") is not None  # the records are fine
    errs = S._schema_errors(doc, "analysis")
    assert errs == _full_errors(doc) and any(e.startswith("$.baseline") for e in errs)
    assert any(e.startswith("$.inputs.runs[0].seed") for e in errs)


def test_lone_surrogate_still_a_value_problem():
    assert value_problems({"a": ["ok", "x\ud800"]}) and not value_problems({"a": ["ok", "é\U0001f600"]})


DOCS = [{"a": [1, 2 ** 53 - 1, -(2 ** 53 - 1), "é\U0001f600", True, None, 1.5, {"b": []}]},
        {"a": 2 ** 53}, {"a": -(2 ** 53)}, {"a": 10 ** 30}, {"a": float("inf")}, {"a": [float("nan")]},
        {"a": -float("inf")}, {"k\ud800": 1}, {"a": ["x", "y\udfff"]}, [[[[1.0]]]], "plain", 3,
        {"a": __import__("numpy").float64("inf")}, {"a": __import__("numpy").float64(0.5)}, {"a": True}]


@pytest.mark.parametrize("i", range(len(DOCS)))
def test_value_problems_fast_path_equals_the_walk(i, monkeypatch):
    import prereg.values as V

    fast = V.value_problems(DOCS[i])
    monkeypatch.setattr(V, "_plainly_canonical", lambda doc: False)
    assert fast == V.value_problems(DOCS[i])
    assert bool(fast) == (i not in (0, 9, 10, 11, 13, 14))
