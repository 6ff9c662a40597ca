"""No new string-key read of the preregistration outside prereg/study.py (issue 15: typed configuration).

The validated plan is parsed once into :mod:`prereg.study`'s frozen dataclasses, which hold the
defaults. ``scripts/raw_reads.py`` finds reads such as ``p["analysis"]`` or ``prereg.get("seeds")``
(an AST scan; what counts as the plan is in its docstring). A file may read the raw plan only if
it is listed here with its reason; ``NOT_YET`` lists the readers still to move, with a count that
may only go down. Count: ``python scripts/raw_reads.py [--list]``.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from raw_reads import raw_reads  # noqa: E402

# Places that must see the plan as JSON, each with its reason.
RAW = {
    "prereg/study.py": "the parse itself: the one place that reads the plan by key and holds its defaults",
    "prereg/declarations.py": "part of the parse (Study.metrics, arm_decls, contrasts and sessions are its output); "
                              "also reads plans tolerantly for the audit",
    "prereg/fields.py": "merged_fields, part of the parse (Training.fields)",
    "prereg/rules.py": "study_seeds, part of the parse (Study.seeds); tolerant of a plan that failed validation",
    "prereg/lock.py": "building and verifying a lock: the study id is checked against the raw JSON before it is "
                      "parsed (tamper check), and the lock stores the plan as written",
    "audit/lockview.py": "the audit reads locks it has not validated (tampered or hand-edited), tolerantly",
    "audit/sessions.py": "the audit's declared session labels, read leniently from a lock it also reports on "
                         "(a malformed sessions block gives no labels)",
}

# Readers still to move onto Study: the count may only go down (lower it when you move one).
NOT_YET: dict[str, int] = {}   # empty since looks.py and seqdesign.py read Study (the last two)


@pytest.fixture(scope="module")
def reads() -> list[tuple[str, int, str]]:
    return raw_reads()  # ~0.9 CPU-s: every file of the four packages parsed once


def test_no_file_reads_the_plan_by_string_key_unless_listed_with_its_reason(reads):
    per_file = Counter(path for path, _, _ in reads)
    unlisted = {f: n for f, n in per_file.items() if f not in RAW and f not in NOT_YET}
    assert not unlisted, (f"string-key reads of the preregistration in {unlisted}: read prereg.study's typed "
                          "Study instead (add a field there if the value has none; `python scripts/raw_reads.py "
                          "--list` shows each read)")
    grown = {f: (per_file[f], n) for f, n in NOT_YET.items() if per_file[f] > n}
    assert not grown, f"more string-key reads than allowed (found, allowed): {grown}"


def test_lint_and_the_runner_read_no_raw_plan(reads):
    assert [r for r in reads if r[0].startswith("runner/") or Path(r[0]).name.startswith("lint")] == []


@pytest.mark.parametrize("code, found", [
    ("def rule(p):\n    return p['analysis']['unit']\n", ["analysis", "unit"]),
    ("def rule(prereg):\n    a = prereg.get('analysis') or {}\n    return a.get('unit', 'seed')\n",
     ["analysis", "unit"]),
    ("def f(lock):\n    return [h['id'] for h in lock.prereg['hypotheses']]\n", ["hypotheses", "id"]),
    ("def f(doc):\n    return doc['preregistration']['seeds']\n", ["seeds"]),
    ("def f(study):\n    return study.analysis.unit, study.arms['grpo'].training.num_iterations\n", []),
    ("def f(row):\n    return row['unit']\n", []),
])
def test_the_scan_finds_a_string_key_read_and_passes_a_typed_one(tmp_path, code, found):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(code)
    assert sorted(k for _, _, k in raw_reads(("pkg",), root=tmp_path)) == sorted(found)
