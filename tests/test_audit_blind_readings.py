"""What the blind report set (``tests/report_corpus_blind/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and
numbers of its own (not copied from the set's reports).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit.checks.analysis import _grim, grim_possible
from audit.findings import CheckResult
from audit.lockview import lock_view

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def _grim_messages(n: int, values: dict[str, float]) -> list[str]:
    prereg = json.loads(json.dumps(E1))
    prereg["dataset"]["heldout_n"] = n
    ctx = SimpleNamespace(lock_view=lock_view(prereg), analysis={"values": {k: {"value": v} for k, v in values.items()}})
    out = CheckResult("9", "analysis", "analysis")
    _grim(ctx, out, "analysis.json")
    return [f"{f.location} {f.message}" for f in out.findings]


@pytest.mark.parametrize(("v", "n", "possible"), [
    (0.3345, 1100, True),        # 368/1100 = 0.334545..., typed to 4 decimals
    (0.3347, 1100, False),       # no k/1100 rounds to 0.3347
    (368 / 1100, 1100, True),    # full precision: exact
    (0.334546, 1100, False),     # 6 decimals: 0.334545 would be the rounding
    (0.25, 64, True), (0.26, 64, False), (0.3, 64, True),
])
def test_grim_allows_the_rounding_of_a_typed_proportion(v, n, possible):
    assert grim_possible(v, n) is possible


def test_grim_on_an_imported_table_fires_on_an_impossible_value_only():
    """Check 9's GRIM step: a table's 4-decimal accuracies pass when some k/n rounds to them, and a
    value no k/n rounds to is still a finding (it used to flag every rounded value)."""
    clean = {"runs.grpo.s3.heldout_accuracy": 0.3345, "runs.dapo.s3.heldout_accuracy": 0.4355}
    assert _grim_messages(1100, clean) == []
    broken = dict(clean, **{"runs.dapo.s3.heldout_accuracy": 0.4357})
    assert _grim_messages(1100, broken) == [
        "analysis.json#$.values['runs.dapo.s3.heldout_accuracy'].value proportion impossible with n = 1100 (GRIM)"]
