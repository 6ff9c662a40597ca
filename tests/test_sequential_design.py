"""A sequential design in the preregistration: schema, cross-field validation, lint and `prereg design`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from prereg import power as pw
from prereg.cli import main, validate_file
from prereg.lint import lint
from prereg.seqdesign import design, plan_of
from prereg.sequential import spending_boundaries
from prereg.study import study_of

ROOT = Path(__file__).resolve().parents[1]


def seq_prereg(**seq) -> dict:
    p = json.loads((ROOT / "examples" / "demo.json").read_text())
    p["seeds"] = [1, 2, 3, 4, 5, 6, 7, 8]
    p["analysis"]["sequential"] = {"looks": [4, 6, 8], "spending": "obrien_fleming", "calibration_draws": 50_000,
                                   **seq}
    p["analysis"]["power"].update(pilot_sd=0.03, effect=0.05)
    return p


def write(tmp_path, p, name="seq.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(p))
    return path


def one_line_error(capsys, rc):
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("seq,msg", [
    ({"looks": [4, 4, 8]}, "looks must increase strictly"),
    ({"looks": [4, 6, 7]}, "the last look (7 seeds) must equal the registered seeds (8)"),
    ({"spending": "hsd"}, "sequential.gamma: the hsd spending function needs gamma"),
    ({"looks": [1, 8]}, "looks"),
    ({"spending": "linear"}, "spending"),
])
def test_validate_refuses_unrunnable_looks(tmp_path, seq, msg):
    errs = validate_file(write(tmp_path, seq_prereg(**seq)))
    assert any(msg in e for e in errs), errs


def test_valid_sequential_plan_validates_and_locks(tmp_path, capsys):
    path = write(tmp_path, seq_prereg(spending="hsd", gamma=-4, futility={"type": "binding", "beta": 0.1}))
    assert validate_file(path) == []
    assert main(["lock", str(path), "--lock-dir", str(tmp_path / "locks")]) == 0
    lock = next((tmp_path / "locks").glob("*.lock.json"))
    capsys.readouterr()
    assert main(["design", str(lock), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spending"] == "hsd"


def test_lint_sequential_plan_findings():
    p = seq_prereg()
    assert [f for f in lint(p) if f.rule.startswith("sequential")] == []
    bad = copy.deepcopy(p)
    bad["analysis"]["contrasts"]["test"] = "wilcoxon"
    assert any(f.rule == "sequential-plan" and "paired_t" in f.message for f in lint(bad))
    nopilot = seq_prereg(futility={"type": "non_binding"})
    del nopilot["analysis"]["power"]["pilot_sd"]
    assert any(f.rule == "sequential-plan" and "pilot_sd" in f.message for f in lint(nopilot))


def test_lint_sequential_underpowered():
    p = seq_prereg()
    p["analysis"]["power"].update(pilot_sd=0.03, effect=0.03)
    found = [f for f in lint(p, ["sequential-underpowered"])]
    assert len(found) == 1 and "target is 0.8" in found[0].message
    p["analysis"]["power"]["effect"] = 0.08
    assert lint(p, ["sequential-underpowered"]) == []


def test_design_json_next_to_fixed_design(tmp_path, capsys):
    path = write(tmp_path, seq_prereg(futility={"type": "non_binding"}))
    assert main(["design", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    m = len(json.loads(path.read_text())["analysis"]["multiplicity"]["family"])
    alpha = 0.05 / m  # Bonferroni split of the family's alpha over its contrasts (4 in the demo)
    assert d["alpha_per_contrast"] == pytest.approx(alpha)
    z = spending_boundaries([0.5, 0.75, 1.0], alpha)
    assert d["z_upper"] == pytest.approx(list(z.upper))
    assert d["fixed_power"] == pytest.approx(pw.power_paired(0.05, 0.03, 8, alpha))
    assert d["expected_seeds_h1"] < d["max_seeds"] == 8 and d["expected_seeds_h0"] < 8
    assert d["power"] <= d["fixed_power"] + 0.01
    assert abs(d["level"] - alpha) < 4 * (alpha / 50_000) ** 0.5 * 1.5
    assert all(t > zz for t, zz in zip(d["t_upper"], d["z_upper"], strict=True))  # t bounds wider than z


def test_design_rich_table_and_refusals(tmp_path, capsys):
    path = write(tmp_path, seq_prereg())
    assert main(["design", str(path)]) == 0
    out = capsys.readouterr().out
    assert "expected seeds, H0" in out and "fixed (8 seeds)" in out and "t bound" in out
    assert main(["design", str(ROOT / "examples" / "demo.json")]) == 2
    assert "fixed design" in one_line_error(capsys, 2)
    assert main(["design", str(tmp_path / "missing.json")]) == 2
    one_line_error(capsys, 2)


def test_design_is_deterministic_and_seeded():
    p = plan_of(study_of(seq_prereg()))
    assert design(p).t_upper == design(p).t_upper
    q = seq_prereg()
    q["analysis"]["rng_seed"] += 1
    assert design(plan_of(study_of(q))).t_upper[1:] != design(p).t_upper[1:]


def test_show_names_the_sequential_plan(tmp_path, capsys):
    path = write(tmp_path, seq_prereg())
    assert main(["lock", str(path), "--lock-dir", str(tmp_path / "locks")]) == 0
    lock = next((tmp_path / "locks").glob("*.lock.json"))
    capsys.readouterr()
    assert main(["show", str(lock)]) == 0
    assert "looks at 4, 6, 8 seeds per arm, obrien_fleming spending" in capsys.readouterr().out
