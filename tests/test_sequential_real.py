"""A real staged sequential study on the tiny offline model (README failure 19).

Look 1 runs through `runner sweep --look 1`, look 2 is refused until `stats interim` writes a
record that says continue, then runs; the final analysis and the audit are clean; and the audit
catches a look taken early, an extra look and a decision that contradicts the boundary, each
made by editing the sealed looks log and resealing it as a careful forger would.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from prereg import looks as lk
from tests.runner_run_support import BASE, write_lock

pytestmark = pytest.mark.slow


def _prereg() -> dict:
    p = copy.deepcopy(BASE)
    p["id"] = "seqreal"
    p["arms"] = {k: p["arms"][k] for k in ("grpo", "dr_grpo")}
    p["seeds"] = [1, 2, 3]
    p["analysis"]["sequential"] = {"looks": [2, 3], "spending": "pocock", "calibration_draws": 20_000}
    return p


def _reseal(runs: Path, fn) -> None:
    path = lk.looks_dir(runs, "seqreal") / lk.LOG
    entries = fn([json.loads(x) for x in path.read_text().splitlines()])
    prev = None
    for i, e in enumerate(entries):
        e.update(index=i, prev=prev)
        e["seal"] = lk.seal_of(e)
        prev = e["seal"]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def _audit(root: Path) -> list[str]:
    from audit.engine import run_audit

    res = run_audit(root / "report", lock=root / "locks" / "seqreal.lock.json", runs=root / "runs",
                    only=["1", "2", "3", "9", "12"])  # 5 warns: locked the same day
    return [f"{f.check}: {f.message}" for f in res.findings]


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    from runner.sweep.cli import main as sweep
    from stats.cli import main as stats

    root = tmp_path_factory.mktemp("seqreal")
    (root / "locks").mkdir()
    lock = write_lock(root / "locks", _prereg())
    runs = root / "runs"
    common = [str(lock), "--out", str(runs), "--no-live"]
    assert sweep(common + ["--look", "1"]) == 0
    assert sorted(p.name for p in (runs / "seqreal" / "grpo").iterdir()) == ["s1", "s2"]  # look 1 and no more
    assert sweep(common + ["--look", "2"]) == 2  # refused: no interim record yet
    assert not (runs / "seqreal" / "grpo" / "s3").exists()
    assert stats(["interim", str(lock), str(runs)]) == 0
    (rec,) = lk.read_log(runs, "seqreal")
    assert rec["kind"] == "interim" and rec["decision"] == "continue" and rec["n_seeds"] == 2
    assert sweep(common + ["--look", "2"]) == 0
    assert (runs / "seqreal" / "dr_grpo" / "s3" / "manifest.json").exists()
    report = root / "report"
    assert stats(["analyze", str(lock), str(runs), "-o", str(report / "analysis.json")]) == 0
    assert stats(["render", str(report / "analysis.json"), "-o", str(report)]) == 0
    assert len(lk.read_log(runs, "seqreal")) == 1  # the final analysis is not a peek
    return root


def test_staged_study_runs_look_by_look_and_audits_clean(staged):
    a = json.loads((staged / "report" / "analysis.json").read_text())
    assert a["values"]["contrasts.dr_grpo-grpo.sequential.look"]["value"] == 2
    assert (staged / "report" / "figures" / "sequential_boundaries.png").exists()
    assert _audit(staged) == []


@pytest.mark.parametrize("edit,message", [
    (lambda es: [dict(es[0], n_seeds=1, seeds=[1])], "look 1 taken at 1 seeds, not at its registered 2"),
    (lambda es: es + [dict(es[0])], "extra look"),
    (lambda es: [dict(es[0], decision="stop", contrasts={
        k: dict(c, decision="stop_efficacy") for k, c in es[0]["contrasts"].items()})],
     "decision contradicts the registered boundary"),
])
def test_audit_catches_tampered_looks(staged, tmp_path, edit, message):
    root = tmp_path / "copy"
    shutil.copytree(staged, root)
    _reseal(root / "runs", edit)
    assert any(message in m for m in _audit(root)), _audit(root)
