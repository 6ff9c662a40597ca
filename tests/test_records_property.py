"""Property: mutated records never crash the audit and never pass when they contradict themselves.

Hypothesis picks a record (a manifest, a held-out trace, telemetry, analysis.json) of a copy of
the clean campaign and one mutation: a changed value, a changed type, a duplicated key, a cut
file, or an adversary's edit that re-digests and re-seals the manifest (so only the record's
own cross-checks stand between it and a pass). ``audit.engine.run_audit`` must either return a
result or raise ``UserError`` (bad usage, one line), never another exception, and it must not
pass a record that contradicts itself:

* a raw edit of a sealed or digested file contradicts its seal or digest;
* a re-sealed held-out row whose ``correct``/``reward`` no longer follows from its prediction
  and target (prereg.scoring, checked against the runner's tasks in test_records_audit.py);
* a re-sealed summary that differs from its recomputation, or a resolved-config seed that
  differs from the manifest's seed;
* an analysis.json value that is not what the locked plan computes.

The example count is CI-sized under ``HYPOTHESIS_PROFILE=ci`` and smaller in the fast tier (each
example copies the campaign and runs the whole audit).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from audit_defects import ARMS, SEEDS, copy_campaign
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.engine import run_audit
from prereg.errors import UserError
from prereg.jsonio import read_json, write_json_atomic
from prereg.records import HELDOUT_TRACE, MANIFEST, TELEMETRY, artifact_digests, seal
from prereg.scoring import scorer_for

# CI runs 15 examples per test, the fast tier 4 (tests/budget.py); RLPREREG_PROPERTY_EXAMPLES sets a deep run
EXAMPLES = int(os.environ.get("RLPREREG_PROPERTY_EXAMPLES", examples(ci=15, dev=4)))


@pytest.fixture(scope="module")
def clean(clean_campaign):
    camp = clean_campaign
    assert run_audit(camp.report).exit_code == 0
    return camp


# ----------------------------------------------------------------------------- value mutations
def _other_value(v, pick: int):
    """A value different from ``v``: same type when ``pick`` is even, another type when odd."""
    if pick % 2 == 0:
        if isinstance(v, bool):
            return not v
        if isinstance(v, int):
            return v + 1 + pick
        if isinstance(v, float):
            return v + 0.25 + pick
        if isinstance(v, str):
            return v + "x"
        return 0
    others = ["1", 1.5, None, [], {}, True, 10**20, "\u00e9"]
    cand = [o for o in others if type(o) is not type(v)]
    return cand[pick % len(cand)]


def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, (*path, i))
    else:
        yield path, obj


def _set(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


# ----------------------------------------------------------------------------- raw file edits
def _raw_edit(path: Path, kind: str, pick: int) -> None:
    text = path.read_text()
    if kind == "truncate":
        path.write_text(text[: max(1, (pick * 7919) % max(len(text) - 1, 1))])
    elif kind == "duplicate_key":
        first = text.find('"', text.find("{"))
        key = text[first:text.find('"', first + 1) + 1]
        path.write_text(text.replace("{", "{" + key + ": 0, ", 1))
    else:  # a changed value or type at one leaf, written back unsealed
        if path.suffix == ".jsonl":
            rows = [json.loads(x) for x in text.splitlines() if x.strip()]
            row = rows[pick % len(rows)]
            leaves = list(_leaves(row))
            lp, lv = leaves[pick % len(leaves)]
            _set(row, lp, _other_value(lv, pick if kind == "value" else pick | 1))
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        else:
            doc = json.loads(text)
            leaves = [(p, v) for p, v in _leaves(doc) if p and p[0] not in ("seal",)]
            if path.name == "analysis.json":  # unsealed: its checked content is every computed value
                leaves = [(p, v) for p, v in leaves if p[0] == "values" and p[-1] == "value"]
            lp, lv = leaves[pick % len(leaves)]
            _set(doc, lp, _other_value(lv, pick if kind == "value" else pick | 1))
            path.write_text(json.dumps(doc))


# ----------------------------------------------------------------------------- adversary edits
def _reseal(run_dir: Path, fn) -> bool:
    """Edit and re-seal as the adversary would; False when no seal can hold the edit."""
    m = read_json(run_dir / MANIFEST)
    fn(m)
    m["artifacts"] = artifact_digests(run_dir)
    try:
        write_json_atomic(run_dir / MANIFEST, seal(m))
    except UserError:  # e.g. an integer beyond 2^53: not a record anyone can seal
        return False
    return True


def _contradicts(row: dict, task: str) -> bool:
    out = scorer_for(task).rescore(row.get("prediction"), row.get("target"))
    return not isinstance(row.get("correct"), bool) or row["correct"] != out.correct or \
        not isinstance(row.get("reward"), (int, float)) or abs(row["reward"] - out.reward) > 1e-9


def _adversary(camp, run_dir: Path, kind: str, pick: int) -> bool:
    """Apply a re-sealed edit; True when the result contradicts itself (so must not pass)."""
    if kind == "heldout_row":
        p = run_dir / HELDOUT_TRACE
        rows = [json.loads(x) for x in p.read_text().splitlines()]
        row = rows[pick % len(rows)]
        field = ["correct", "reward", "target", "prediction"][pick % 4]
        row[field] = _other_value(row[field], pick)
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        task = read_json(camp.lock)["preregistration"]["task"]["name"]
        return _contradicts(row, task) and _reseal(run_dir, lambda m: None)
    if kind == "summary":
        key = ["heldout_accuracy", "heldout_correct", "zvf_mean", "rollouts", "steps"][pick % 5]
        return _reseal(run_dir, lambda m: m["summaries"].__setitem__(key, _other_value(m["summaries"][key], pick)))
    if kind == "seed":
        where = [("trainer", "seed"), ("runner", "seed")][pick % 2]
        return _reseal(run_dir, lambda m: m["resolved_config"][where[0]].__setitem__(where[1], m["seed"] + 1 + pick))
    raise AssertionError(kind)


def _audit(camp):
    try:
        return run_audit(camp.report)
    except UserError as exc:  # bad usage: one line naming the file, never a pass
        assert "\n" not in str(exc)
        return None


@given(kind=st.sampled_from(["value", "type", "duplicate_key", "truncate"]),
       target=st.sampled_from(["manifest", "heldout", "telemetry", "analysis"]),
       unit=st.integers(0, len(ARMS) * len(SEEDS) - 1), pick=st.integers(0, 10**6))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("RLPREREG_PROPERTY_EXAMPLES") is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_raw_mutations_never_crash_and_never_pass(clean, kind, target, unit, pick):
    tmp = Path(tempfile.mkdtemp(prefix="rec-prop-"))
    try:
        camp = copy_campaign(clean, tmp / "c")
        run_dir = camp.run_dir(ARMS[unit // len(SEEDS)], SEEDS[unit % len(SEEDS)])
        path = {"manifest": run_dir / MANIFEST, "heldout": run_dir / HELDOUT_TRACE,
                "telemetry": run_dir / TELEMETRY, "analysis": camp.report / "analysis.json"}[target]
        before = path.read_bytes()
        _raw_edit(path, kind, pick)
        if path.read_bytes() == before:
            return
        res = _audit(camp)
        assert res is None or res.exit_code != 0, f"{kind} {target} passed the audit"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@given(kind=st.sampled_from(["heldout_row", "summary", "seed"]),
       unit=st.integers(0, len(ARMS) * len(SEEDS) - 1), pick=st.integers(0, 10**6))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("RLPREREG_PROPERTY_EXAMPLES") is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_resealed_contradictions_never_pass(clean, kind, unit, pick):
    tmp = Path(tempfile.mkdtemp(prefix="rec-prop-"))
    try:
        camp = copy_campaign(clean, tmp / "c")
        run_dir = camp.run_dir(ARMS[unit // len(SEEDS)], SEEDS[unit % len(SEEDS)])
        contradicts = _adversary(camp, run_dir, kind, pick)
        res = _audit(camp)
        if contradicts:
            assert res is None or res.exit_code != 0, f"re-sealed {kind} contradiction passed the audit"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
