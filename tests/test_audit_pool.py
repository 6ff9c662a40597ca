"""Check 7 over forked workers (audit.pool): the same findings in the same order as the serial
path, defects planted in runs checked by a worker found there, bad input raised in a worker
still one line and exit 2, and a small audit never forks (README failure 10: an audit that
does not keep up with a campaign's size is skipped)."""

from __future__ import annotations

import os

import pytest
from audit_defects import (
    analysis_value_edited,
    artifact_missing,
    copy_campaign,
    duplicate_item_index,
    gu_out_of_range,
    malformed_completion_hash,
    manifest_byte_flipped,
)

import audit.checks.analysis as analysis
import audit.checks.runs as runs
import audit.checks.traces as traces
import audit.pool as pool
from audit.cli import main
from audit.engine import run_audit
from prereg.errors import UserError


def _decisions(res) -> list:
    """Everything the audit decided, without its timings."""
    out = []
    for r in res.results:
        d = r.as_dict()
        d.pop("seconds")
        out.append(d)
    return [out, res.numbers, res.untraced, res.traced_count]


@pytest.fixture()
def pids(monkeypatch, tmp_path):
    """Record which process checked each run in checks 2 and 7 (the workers inherit the
    wrappers when forked): ``pids()`` lists ``[pid, check, arm/seed]``."""
    log = tmp_path / "pids.txt"
    real7, real2 = traces._check_run, runs._check_artifacts

    def note(check, r):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {check} {r.path.parent.name}/{r.path.name}\n")

    def check7(ctx, out, keys, r, *a, **kw):
        note(7, r)
        return real7(ctx, out, keys, r, *a, **kw)

    def check2(ctx, out, r, mp):
        note(2, r)
        return real2(ctx, out, r, mp)

    monkeypatch.setattr(traces, "_check_run", check7)
    monkeypatch.setattr(runs, "_check_artifacts", check2)
    return lambda: [ln.split() for ln in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture(scope="module")
def broken(clean_campaign, tmp_path_factory):
    """Three check 7 defects in three different runs (so in different chunks of a pooled audit),
    two check 2 defects, and an analysis value that check 9's recomputation contradicts."""
    c = copy_campaign(clean_campaign, tmp_path_factory.mktemp("pool") / "c")
    for plant in (duplicate_item_index, gu_out_of_range, malformed_completion_hash, analysis_value_edited,
                  artifact_missing, manifest_byte_flipped):
        plant(c)
    return c


def test_pooled_findings_equal_serial_and_come_from_workers(broken, monkeypatch, pids, tmp_path):
    real_recompute, where = analysis.recompute, tmp_path / "check9.txt"

    def recompute(*a, **kw):
        where.write_text(str(os.getpid()))
        return real_recompute(*a, **kw)

    monkeypatch.setattr(analysis, "recompute", recompute)
    serial = run_audit(broken.report, jobs=1)
    assert where.read_text() == str(os.getpid())
    assert "value differs from its recomputation" in {f.message for f in serial.results[8].findings}
    assert len(pids()) == 18 and {p for p, _, _ in pids()} == {str(os.getpid())}
    assert {f.message for f in serial.results[1].findings} >= {
        "artifact listed in the manifest is missing", "manifest seal does not match its content (edited after sealing)"}
    msgs = [f.message for f in serial.results[6].findings]
    assert "duplicated held-out item index" in msgs and "malformed completion hash (1 line(s))" in msgs
    assert any(m == "GU outside its range" for m in msgs)

    monkeypatch.setattr(pool, "MIN_RUNS", 2)
    before = len(pids())
    pooled = run_audit(broken.report, jobs=2)
    workers = {p for p, _, _ in pids()[before:]}
    assert workers and str(os.getpid()) not in workers   # every run checked in a worker
    assert sorted(c for _, c, _ in pids()[before:]) == ["2"] * 9 + ["7"] * 9
    assert where.read_text() != str(os.getpid())          # check 9 ran in a worker beside checks 10-12
    assert _decisions(pooled) == _decisions(serial)
    assert [f.location for f in pooled.findings] == [f.location for f in serial.findings]


def test_clean_campaign_pooled_passes_with_the_same_kept_arrays(clean_campaign, monkeypatch):
    """Check 9's recomputation reads the per-item arrays check 7 made in the workers."""
    serial = run_audit(clean_campaign.report, jobs=1)
    monkeypatch.setattr(pool, "MIN_RUNS", 2)
    pooled = run_audit(clean_campaign.report, jobs=3)
    assert pooled.passed and not pooled.findings
    assert _decisions(pooled) == _decisions(serial)


def test_small_audit_runs_in_process(clean_campaign, pids):
    """9 runs are below MIN_RUNS: no worker is started even when jobs allow it."""
    assert pool.MIN_RUNS > 9
    run_audit(clean_campaign.report, jobs=4)
    assert {p for p, _, _ in pids()} == {str(os.getpid())}


def test_bad_input_raised_in_a_worker_is_one_line_and_exit_2(clean_campaign, monkeypatch, capsys):
    real = traces._check_run

    def failing(ctx, out, keys, r, *a, **kw):
        if r.path.name == "s23" and r.path.parent.name == "dapo":
            raise UserError(f"{r.path}: planted bad input")
        return real(ctx, out, keys, r, *a, **kw)

    monkeypatch.setattr(traces, "_check_run", failing)
    monkeypatch.setattr(pool, "MIN_RUNS", 2)
    parent = os.getpid()
    with pytest.raises(UserError, match="planted bad input"):
        run_audit(clean_campaign.report, jobs=2)
    assert os.getpid() == parent
    rc = main(["check", str(clean_campaign.report), "--jobs", "2", "--plain"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and err.endswith("planted bad input\n") and err.count("\n") == 1


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_bad_jobs_is_one_line_and_exit_2(clean_campaign, capsys, bad):
    assert main(["check", str(clean_campaign.report), "--jobs", bad, "--plain"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --jobs") and err.count("\n") == 1


def test_jobs_from_environment(monkeypatch):
    monkeypatch.setenv(pool.JOBS_ENV, "3")
    assert pool.default_jobs() == 3
    monkeypatch.setenv(pool.JOBS_ENV, "many")
    with pytest.raises(UserError, match=pool.JOBS_ENV):
        pool.default_jobs()
    monkeypatch.delenv(pool.JOBS_ENV)
    assert pool.default_jobs() == len(os.sched_getaffinity(0))


def test_map_runs_keeps_order_and_reads_unpicklable_state():
    """Results in input order over uneven chunks; the function (a closure over a lock, which
    cannot be pickled) and its inputs reach the workers by fork."""
    import threading

    guard = threading.Lock()
    offset = {"v": 1000}

    def fn(i):
        with guard:
            return (i + offset["v"], os.getpid())

    got = pool.map_runs(fn, range(101), jobs=2, min_items=1)
    assert [v for v, _ in got] == [i + 1000 for i in range(101)]
    assert str(os.getpid()) not in {str(p) for _, p in got}
    assert pool.map_runs(fn, range(3), jobs=2, min_items=10) == [(i + 1000, os.getpid()) for i in range(3)]


def test_a_check_failing_beside_check_9_ends_its_worker(clean_campaign, monkeypatch, capsys):
    """Check 10 raising bad input while check 9 runs in a worker: the error is the CLI's one line
    and exit 2, and no worker process is left behind."""
    import multiprocessing

    import audit.checks.report_numbers as report_numbers

    def bad(ctx):
        raise UserError("report.md: planted unreadable report")

    monkeypatch.setattr(report_numbers, "traced_report", bad)
    monkeypatch.setattr(pool, "MIN_RUNS", 2)
    rc = main(["check", str(clean_campaign.report), "--jobs", "2", "--plain"])
    err = capsys.readouterr().err
    assert rc == 2 and err == "error: report.md: planted unreadable report\n"
    assert multiprocessing.active_children() == []
