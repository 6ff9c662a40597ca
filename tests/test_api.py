"""The four stages called from Python the documented way (README "Python API").

``from prereg import lock, verify``, ``from runner import run_unit, run_sweep``, ``from stats
import analyze, render`` and ``from audit import check``; the CLIs are thin layers over these.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from audit import AuditResult, check
from prereg import Refusal, UserError, lock, verify
from stats import AnalysisResult, analyze, render
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


@pytest.mark.slow  # subprocess; fast tier: test_no_torch makes the same imports
def test_api_imports_without_torch_and_keeps_the_modules_importable():
    code = ("import sys; from prereg import lock, verify; from stats import analyze, render; "
            "from audit import check; from runner import run_unit, run_sweep; "
            "from prereg.lock import verify_lock; from stats.analyze import build; from stats.render import fmt; "
            "assert callable(lock) and callable(analyze) and callable(render); "
            "assert 'torch' not in sys.modules, 'the API imported torch'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_runner_api_has_the_runners_signature():
    import runner.train
    from runner import run_unit

    assert inspect.signature(run_unit) == inspect.signature(runner.train.run_unit)
    assert run_unit.__doc__ and "Args:" in run_unit.__doc__ and "Example:" in run_unit.__doc__


def test_lock_and_verify(tmp_path):
    src = tmp_path / "demo.json"
    src.write_text((ROOT / "examples" / "demo.json").read_text())
    path = lock(src, lock_dir=tmp_path / "locks")
    got = verify(path)
    assert got.study_id == json.loads(src.read_text())["id"] and got.version == 1
    data = json.loads(path.read_text())
    data["preregistration"]["seeds"] = data["preregistration"]["seeds"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="tampered"):
        verify(path)
    with pytest.raises(UserError):
        lock(tmp_path / "missing.json", lock_dir=tmp_path / "locks")
    assert issubclass(Refusal, UserError)


def test_analyze_render_check_end_to_end(tmp_path):
    p = small_prereg(E1, heldout_n=60, steps=4, seeds=[11, 23, 37, 53])
    p["analysis"]["resamples"] = 500
    c = make_campaign(tmp_path / "c", p, effects={"gspo": 0.3}, seed_sd=0.02)
    result = analyze(c.lock_path, c.runs_dir, log_look=False)
    assert isinstance(result, AnalysisResult) and result.study_id == p["id"]
    assert set(result.contrasts) == set(result.document["contrasts"])
    g = result.contrasts["gspo-grpo"]
    assert g.estimate == result.value("contrasts.gspo-grpo.diff_mean") and g.estimate > 0.1
    assert g.p_adjusted == result.value("contrasts.gspo-grpo.p_adjusted") and g.reject is True
    assert result.hypotheses and all(v for v in result.hypotheses.values())
    report = tmp_path / "report"
    written = render(result, report, figures=False)  # the text is audited; PNGs: test_stats_render.py::test_figures_are_pngs
    assert (report / "analysis.json").exists() and (report / "report.md") in written
    audited = check(report, lock=c.lock_path, runs=c.runs_dir)
    assert isinstance(audited, AuditResult) and audited.passed, [f.message for f in audited.errors]
    md = report / "report.md"
    text = md.read_text()
    pin = text.index("<!-- id:contrasts.gspo-grpo.diff_mean -->")  # the number just before its pin
    digit = pin - 1
    md.write_text(text[:digit] + str((int(text[digit]) + 1) % 10) + text[digit + 1:])
    assert not check(report, lock=c.lock_path, runs=c.runs_dir).passed, "a changed number must be caught"
    with pytest.raises(UserError, match="--only"):
        check(report, only=["99"])
