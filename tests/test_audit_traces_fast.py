"""Check 7's whole-trace fast paths (README failures 5 and 14) decide exactly as the row-by-row
scans: a clean trace takes the fast path, and every bad row sends the trace to the scan, which
names it. Each case compares the findings with the fast path on and off."""

from __future__ import annotations

import copy

import pytest

from audit.checks import traces
from audit.findings import CheckResult
from prereg.scoring import Scorer, arith_outcome, scorer_for

HEX = "0123456789abcdef" * 4


def _row(i: int, ok: bool) -> dict:
    pred = "7" if ok else ("3" if i % 2 else "no answer")
    want = scorer_for("arith").rescore(pred, "7")
    return {"completion_sha256": HEX, "correct": want.correct, "index": i, "item_id": f"item-{i}",
            "prediction": pred, "reward": want.reward, "target": "7"}


CLEAN = [_row(i, i % 3 == 0) for i in range(30)]


def _set(i, **kw):
    def f(rows):
        rows[i].update(kw)
    return f


# (mutation, the finding message it must produce)
BAD = {
    "outcome not boolean": (_set(4, correct=1), "held-out outcome not boolean"),
    "reward above range": (_set(5, reward=1.5), "held-out reward outside the task's range"),
    "reward infinite": (_set(5, reward=float("inf")), "held-out reward outside the task's range"),
    "reward NaN": (_set(5, reward=float("nan")), "held-out reward outside the task's range"),
    "reward a huge integer": (_set(5, reward=10 ** 400), "held-out reward outside the task's range"),
    "reward a string": (_set(5, reward="1.0"), "held-out reward outside the task's range"),
    "reward missing": (_set(6, reward=None), "held-out row's reward contradicts"),
    "correct contradicts scorer": (_set(7, correct=True), "held-out row's outcome contradicts"),
    "reward contradicts scorer": (_set(0, reward=0.5), "held-out row's reward contradicts"),
    "integer reward contradicts": (_set(0, reward=0), "held-out row's reward contradicts"),
    "prediction unscoreable": (_set(1, prediction="boom"), "cannot be re-scored"),
}


def _arith_refusing_boom(prediction, target):
    """The arith rule, but a prediction it cannot read raises (as a user scorer may)."""
    if prediction == "boom":
        raise ValueError("cannot read 'boom'")
    return arith_outcome(prediction, target)


def _findings(held, scorer, bounds, fast: bool, monkeypatch) -> list:
    out = CheckResult("7", "traces", "t")
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(traces, "_rows_agree_with_scorer", lambda *a: False)
        traces._rescore_heldout(out, lambda: "h.jsonl", traces._Columns(held), scorer, bounds)
    return [(f.location, f.expected, f.found, f.message) for f in out.findings]


def test_clean_trace_takes_every_fast_path():
    scorer = scorer_for("arith")
    assert traces._rows_agree_with_scorer(traces._Columns(CLEAN), scorer, (0.0, 1.0))
    assert traces._rows_agree_with_scorer(traces._Columns(CLEAN), None, None)
    assert traces._all_hex64([r["completion_sha256"] for r in CLEAN])
    out = CheckResult("7", "traces", "t")
    traces._check_heldout_indices(out, lambda: "h.jsonl", traces._Columns(CLEAN), len(CLEAN))
    assert out.findings == []


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("scored", [True, False])
def test_bad_row_found_as_by_the_scan(case, scored, monkeypatch):
    mutate, message = BAD[case]
    held = copy.deepcopy(CLEAN)
    mutate(held)
    scorer = Scorer("arith", 0.0, 1.0, _arith_refusing_boom) if scored else None
    bounds = (0.0, 1.0)
    fast = _findings(held, scorer, bounds, True, monkeypatch)
    assert fast == _findings(held, scorer, bounds, False, monkeypatch)
    if scored or "range" in message or "boolean" in message:
        assert any(message in f[3] for f in fast), fast
        assert not traces._rows_agree_with_scorer(traces._Columns(held), scorer, bounds)


@pytest.mark.parametrize("bad", [HEX.upper(), HEX + "\n", HEX[:-1], HEX + "0", None, 7, HEX[:-1] + "é"])
def test_malformed_hash_found(bad):
    vals = [r["completion_sha256"] for r in CLEAN]
    vals[9] = bad
    assert not traces._all_hex64(vals)
    out = CheckResult("7", "traces", "t")
    traces._check_hashes(out, lambda: "h.jsonl", vals)
    assert [f.location for f in out.findings] == ["h.jsonl:10"]


@pytest.mark.parametrize("index,message", [(True, "not an integer"), (3, "duplicated held-out item index"),
                                           (30, "indices incomplete"), (-1, "indices incomplete"),
                                           (2.0, "not an integer")])
def test_bad_index_found(index, message):
    held = copy.deepcopy(CLEAN)
    held[2]["index"] = index
    out = CheckResult("7", "traces", "t")
    traces._check_heldout_indices(out, lambda: "h.jsonl", traces._Columns(held), len(held))
    assert any(message in f.message for f in out.findings), out.findings


def test_connections_guesses_are_rescored_row_by_row():
    """List predictions cannot be memoised; the fast path scores each row, as the scan does."""
    scorer = scorer_for("connections")
    target = "A, B, C, D | E, F, G, H | I, J, K, L | M, N, O, P"
    guess = [["A", "B", "C", "D"], ["E", "F", "G", "H"], ["I", "J", "K", "L"], ["M", "N", "O", "P"]]
    want = scorer.rescore(guess, target)
    held = [{"completion_sha256": HEX, "correct": want.correct, "index": 0, "prediction": guess,
             "reward": want.reward, "target": target}]
    assert traces._rows_agree_with_scorer(traces._Columns(held), scorer, (scorer.min_reward, scorer.max_reward))
    held[0]["correct"] = not want.correct
    assert not traces._rows_agree_with_scorer(traces._Columns(held), scorer, (scorer.min_reward, scorer.max_reward))


TEL = [{"step": i + 1, "zvf": 0.25, "gu": 0.75, "reward_mean": 0.5, "rollouts": 8 * (i + 1)} for i in range(6)]

TEL_BAD = {
    "starts at 2": (lambda t: [r.update(step=r["step"] + 1) for r in t], "does not start at the first step"),
    "step repeated": (_set(3, step=3), "steps not contiguous"),
    "step a float": (_set(3, step=4.0), "steps not contiguous"),
    "zvf above 1": (_set(2, zvf=1.5, gu=-0.5), "ZVF outside its range"),
    "gu not 1 - zvf": (_set(2, gu=0.7), "GU differs from 1 - ZVF"),
    "reward_mean out of range": (_set(1, reward_mean=1.2), "training reward outside the task's range"),
    "reward_mean infinite": (_set(1, reward_mean=float("inf")), "training reward outside the task's range"),
    "rollouts decrease": (_set(4, rollouts=3), "cumulative rollouts decrease"),
    "zvf an integer": (_set(0, zvf=1, gu=0), None),        # scanned (fine), not a finding
    "zvf missing": (_set(0, zvf=None), None),
}


def _tel_findings(tel, fast: bool, monkeypatch) -> list:
    out = CheckResult("7", "traces", "t")
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(traces, "_telemetry_ok", lambda *a: False)
        traces._check_telemetry(out, lambda: "telemetry.jsonl", tel, {"status": "complete"}, len(TEL), (0.0, 1.0))
    return [(f.location, f.expected, f.found, f.message) for f in out.findings]


def test_clean_telemetry_takes_the_fast_path():
    assert traces._telemetry_ok(TEL, (0.0, 1.0))


@pytest.mark.parametrize("case", sorted(TEL_BAD))
def test_bad_telemetry_found_as_by_the_scan(case, monkeypatch):
    mutate, message = TEL_BAD[case]
    tel = copy.deepcopy(TEL)
    mutate(tel)
    assert not traces._telemetry_ok(tel, (0.0, 1.0))
    fast = _tel_findings(tel, True, monkeypatch)
    assert fast == _tel_findings(tel, False, monkeypatch)
    assert (message is None and fast == []) or any(message in f[3] for f in fast), fast


def test_columns_are_taken_once_and_the_summaries_read_them_alike():
    """Check 7 hands its columns to compute_summaries; the result is the rows' own."""
    from prereg.summaries import compute_summaries

    held = copy.deepcopy(CLEAN)
    held[3]["correct"], held[4]["reward"] = None, None   # a missing value is read as the rows read it
    cols = traces._Columns(held)
    assert compute_summaries(TEL, held, cols) == compute_summaries(TEL, held)
    assert cols("correct") is cols("correct")           # one list, taken once
    assert cols("correct") == [r.get("correct") for r in held]
