"""The fast tier's CPU guard (``scripts/fast_tier_budget.py``) names a costly fast test and passes a
cheap tier; ``slow`` tests are never judged, profile-dependent ones not on a ``ci``-profile run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import fast_tier_budget as ftb  # noqa: E402


def _record(path: Path, tests: dict, profile: str = "dev") -> Path:
    path.write_text(json.dumps({"profile": profile, "tests": {
        k: {"cpu": cpu, "slow": slow, "profile_dependent": dep} for k, (cpu, slow, dep) in tests.items()}}))
    return path


def test_a_costly_fast_test_fails_and_is_named(tmp_path, capsys):
    rec = _record(tmp_path / "a.json", {"tests/test_x.py::test_cheap": (0.2, False, False),
                                        "tests/test_x.py::test_costly": (4.5, False, False)})
    assert ftb.main([str(rec)]) == 1
    err = capsys.readouterr().err
    assert "over budget: tests/test_x.py::test_costly: 4.50 CPU-s > 3" in err
    assert "test_cheap" not in err
    # CI runs it --warn-only: the same offender named, exit 0 (a CPU budget is a timing, not a verdict)
    assert ftb.main([str(rec), "--warn-only"]) == 0
    err = capsys.readouterr().err
    assert "over budget: tests/test_x.py::test_costly" in err and "1 over (warning only)" in err


def test_a_cheap_tier_passes_and_slow_tests_are_not_judged(tmp_path, capsys):
    rec = _record(tmp_path / "a.json", {"tests/test_x.py::test_cheap": (0.2, False, False),
                                        "tests/test_x.py::test_training": (40.0, True, False)})
    assert ftb.main([str(rec)]) == 0
    out = capsys.readouterr().out
    assert "fast tier: 1 tests, 0.2 CPU-s" in out


def test_profile_dependent_tests_are_judged_only_on_a_dev_profile_run(tmp_path, capsys):
    tests = {"tests/test_x.py::test_property": (6.0, False, True)}
    assert ftb.main([str(_record(tmp_path / "ci.json", tests, "ci"))]) == 0
    assert ftb.main([str(_record(tmp_path / "dev.json", tests, "dev"))]) == 1
    assert "test_property" in capsys.readouterr().err


def test_allowed_tests_have_their_own_budget_and_reason(tmp_path):
    name = "tests/test_no_torch.py::test_prereg_stats_audit_clis_without_torch"
    cap, why = ftb.budget_of(name, 3.0)
    assert cap > 3.0 and why
    assert ftb.main([str(_record(tmp_path / "a.json", {name: (cap - 0.5, False, False)}))]) == 0
    assert ftb.main([str(_record(tmp_path / "b.json", {name: (cap + 0.5, False, False)}))]) == 1


def test_workers_records_are_read_together(tmp_path, capsys):
    a = _record(tmp_path / "cpu.json.gw0.json", {"tests/test_a.py::t": (1.0, False, False)})
    b = _record(tmp_path / "cpu.json.gw1.json", {"tests/test_b.py::t": (3.5, False, False)})
    assert ftb.main([str(a), str(b), "--per-test", "5"]) == 0
    assert "fast tier: 2 tests, 4.5 CPU-s" in capsys.readouterr().out
    assert ftb.main([str(a), str(b)]) == 1


@pytest.mark.parametrize("text", ["not json", "[]", '{"profile": "dev"}'])
def test_a_file_that_is_not_a_record_is_one_line_and_exit_2(tmp_path, capsys, text):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    assert ftb.main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: not a test CPU record") and err.count("\n") == 1


def test_shared_fixtures_and_first_imports_are_not_charged_to_the_test(tmp_path, capsys):
    rec = tmp_path / "a.json"
    rec.write_text(json.dumps({"profile": "ci", "fixtures": {"tests/test_x.py::built": {"cpu": 6.0, "slow": False},
                                                             "tests/test_y.py::trained": {"cpu": 60.0, "slow": True}},
                               "tests": {
        "tests/test_x.py::test_first": {"cpu": 9.0, "shared": 6.0, "imports": 1.5, "slow": False,
                                        "profile_dependent": False}}}))
    assert ftb.main([str(rec)]) == 0  # 9.0 - 6.0 - 1.5 = 1.5 CPU-s of its own
    assert ftb.main([str(rec), "--per-fixture", "5"]) == 1
    assert "shared fixture tests/test_x.py::built: 6.00 CPU-s > 5" in capsys.readouterr().err
