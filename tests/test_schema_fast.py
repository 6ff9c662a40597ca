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


# ----------------------------------------------------------------------------- whole manifests
# A manifest's whole schema compiles (prereg.schema._document_predicate): a manifest it accepts
# skips jsonschema; every other one gets jsonschema's errors. Each mutation below must give
# exactly the full validator's errors, and the valid ones must take the fast path.
SHA = "a" * 64


def _set(path, value):
    def edit(m):
        *head, last = path
        for k in head:
            m = m[k]
        m[last] = value
    return edit


def _drop(key):
    return lambda m: m.pop(key)


MANIFEST_EDITS = {
    # jsonschema's own const takes 1.0 for 1; the strict validator and the predicate both refuse it
    "manifest_format 1.0": _set(["manifest_format"], 1.0), "manifest_format true": _set(["manifest_format"], True),
    "manifest_format 2": _set(["manifest_format"], 2), "study_id a number": _set(["study_id"], 3),
    "seal missing": _drop("seal"), "arm missing": _drop("arm"), "error missing": _drop("error"),
    "an unknown field": _set(["extra"], 1), "lock version 0": _set(["lock", "version"], 0),
    "lock version true": _set(["lock", "version"], True), "lock version 1.0": _set(["lock", "version"], 1.0),
    "lock hash short": _set(["lock", "hash"], "abc"), "lock hash upper": _set(["lock", "hash"], "A" * 64),
    "lock hash newline": _set(["lock", "hash"], SHA + "\n"), "lock extra key": _set(["lock", "x"], 1),
    "seed -1": _set(["seed"], -1), "seed 1.5": _set(["seed"], 1.5), "seed a string": _set(["seed"], "1"),
    "seed null, trained": _set(["seed"], None), "kind other": _set(["kind"], "other"),
    "status other": _set(["status"], "done"), "ended_at a number": _set(["ended_at"], 5),
    "session empty": _set(["session"], ""), "resolved_config peft missing": lambda m: m["resolved_config"].pop("peft"),
    "accuracy 1.5": _set(["summaries", "heldout_accuracy"], 1.5),
    "accuracy true": _set(["summaries", "heldout_accuracy"], True),
    "heldout_n -1": _set(["summaries", "heldout_n"], -1), "steps 2.0": _set(["summaries", "steps"], 2.0),
    "zvf -0.1": _set(["summaries", "zvf_mean"], -0.1), "artifact bytes -1": lambda m: m["artifacts"].update(
        x={"sha256": SHA, "bytes": -1}), "artifact extra key": lambda m: m["artifacts"].update(
        x={"sha256": SHA, "bytes": 1, "y": 2}), "artifact a list": lambda m: m["artifacts"].update(x=[]),
    "task 3 bounds": _set(["task"], {"name": "t", "reward_bounds": [0, 1, 2], "item_metrics": {}}),
    "task unit bad": _set(["task"], {"name": "t", "reward_bounds": [0, 1],
                                     "item_metrics": {"m": {"unit": "percentage"}}}),
    "config source a number": _set(["config_sources"], {"a": 1}), "notes a string": _set(["notes"], "x"),
    "tracker bad name": _set(["trackers"], [{"name": "x", "run_id": None}]),
    "tracker no run_id": _set(["trackers"], [{"name": "wandb"}]), "resumes of strings": _set(["resumes"], ["x"]),
    "signature a string": _set(["signature"], "sig"), "signature rsa": _set(
        ["signature"], {"algorithm": "rsa", "public_key": "k", "value": "v"}), "signature extra key": _set(
        ["signature"], {"algorithm": "ed25519", "public_key": "k", "value": "v", "x": 1}),
    "signature no value": _set(["signature"], {"algorithm": "ed25519", "public_key": "k"}),
    # valid ones: the fast path must accept them
    "signature null (valid)": _set(["signature"], None),
    "signature ed25519 (valid)": _set(["signature"], {"algorithm": "ed25519", "public_key": "k", "value": "v"}),
    "task (valid)": _set(["task"], {"name": "t", "reward_bounds": [0, 1.5], "item_metrics": {
        "m": {"unit": "fraction", "max": 1, "range": [0, 1]}}}),
    "reference once (valid)": lambda m: m.update(seed=None, kind="reference", reference={
        "checkpoint": None, "evaluated": "once", "loaded": {"kind": "base"}}),
}


def _full_manifest_errors(doc) -> list[str]:
    errs = value_problems(doc)
    for e in S._validator("manifest").iter_errors(doc):
        msg = e.message if len(e.message) <= 200 else e.message[:197] + "..."
        errs.append(f"{S.json_path(e.absolute_path)}: {msg}")
    return sorted(set(errs))


@pytest.fixture(scope="module")
def manifest(clean_campaign):
    from prereg.jsonio import read_json

    return read_json(sorted(clean_campaign.root.glob("runs/*/*/*/manifest.json"))[0])


def test_a_clean_manifest_takes_the_fast_path(manifest):
    assert S._document_predicate("manifest")(manifest)
    assert S._schema_errors(manifest, "manifest") == _full_manifest_errors(manifest) == []


@pytest.mark.parametrize("case", sorted(MANIFEST_EDITS))
def test_an_edited_manifest_gets_the_full_validators_errors(manifest, case):
    doc = copy.deepcopy(manifest)
    MANIFEST_EDITS[case](doc)
    full = _full_manifest_errors(doc)
    assert S._schema_errors(doc, "manifest") == full
    assert bool(full) == ("valid)" not in case), full
    assert S._document_predicate("manifest")(doc) == ("(valid)" in case)


def _full(doc, name) -> list[str]:
    errs = value_problems(doc)
    for e in S._validator(name).iter_errors(doc):
        msg = e.message if len(e.message) <= 200 else e.message[:197] + "..."
        errs.append(f"{S.json_path(e.absolute_path)}: {msg}")
    return sorted(set(errs))


@pytest.mark.parametrize("name", ["lock", "manifest"])
def test_every_top_level_field_dropped_or_retyped_gets_the_full_errors(clean_campaign, name):
    """Every schema that compiles whole (lock, manifest) gives jsonschema's errors for each field
    dropped or set to each JSON type, and refuses all but the valid ones."""
    from prereg.jsonio import read_json

    glob = "locks/*.json" if name == "lock" else "runs/*/*/*/manifest.json"
    doc = read_json(sorted(clean_campaign.root.glob(glob))[0])
    assert S._document_predicate(name) is not None and S._document_predicate(name)(doc)
    refused = 0
    for key in sorted(doc):
        for value in ("drop", None, True, 2, -1, 0.5, "x", SHA, [], ["x"], {}, {"x": 1}):
            bad = copy.deepcopy(doc)
            if value == "drop":
                bad.pop(key)
            else:
                bad[key] = value
            full = _full(bad, name)
            assert S._schema_errors(bad, name) == full, (key, value)
            assert not (full and S._document_predicate(name)(bad)), (key, value)
            refused += bool(full)
    assert refused > 5 * len(doc)
