"""One coverage rule (prereg/coverage_table.py): ``prereg lint`` and ``stats analyze`` read a method's
coverage at the same tabulated n, level and data shape (README failures 10 and 17; issue 15).

Before, lint kept its own copy of ``stats.coverage.lookup`` with a different answer below the
smallest tabulated n (lint: the smallest n's figure; stats: none).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path

import pytest

from prereg import coverage_table as ct
from prereg.lint import lint
from prereg.lint_inference import interval_coverage
from prereg.schema import schema_errors
from stats import coverage

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())  # primary metric heldout_accuracy (a fraction)
NS = (1, 2, 3, 4, 5, 7, 8, 12, 20, 50)  # below, at, between and above the tabulated 3, 5, 8, 20
METHODS = ("percentile", "paired_bootstrap", "bca", "bootstrap_t", "t")
LINT = re.compile(r"covered only (\d\.\d{3}) at n=(\d+) seeds \((\w+) data")
STATS = re.compile(r"covered `(\d\.\d{3})` at `n=(\d+)` \((\w+) data\)")


def plan(n: int, *, contrast: str = "t", level: float = 0.95, arm: str = "t") -> dict:
    """E1 with ``n`` seeds, one contrast interval and the arm interval as given."""
    d = copy.deepcopy(E1)
    d["seeds"] = list(range(1, n + 1))
    d["analysis"]["arm_summary"] = {"statistics": ["mean"], "interval": arm, "level": 0.95}
    d["analysis"]["contrasts"]["intervals"] = [{"method": contrast, "level": level}]
    assert schema_errors(d, "preregistration") == []
    return d


def lint_quote(d: dict) -> tuple[str, int, str] | None:
    found = interval_coverage(d)  # the rule alone: other rules need 2 seeds (equivalence power)
    assert len(found) <= 1
    return LINT.search(found[0].message).groups() if found else None


@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("method", METHODS)
def test_lint_and_stats_analyze_agree_on_every_n(method, level):
    """For each n, lint fires exactly when ``stats analyze``'s warning does, quoting the same
    coverage, tabulated n and shape; below the table both read n=3 (stats says it is below)."""
    for n in NS:
        got = lint_quote(plan(n, contrast=method, level=level))
        warn = coverage.warning_for("percentile" if method == "paired_bootstrap" else method, n, level,
                                    "heldout_accuracy", contrast=True)
        hit = ct.lookup(method, n, ("paired_bounded",), level=level)
        assert hit == coverage.lookup(method, n, ("paired_bounded",), level=level)  # one function
        cov, tn, shape = hit
        assert tn == max([m for m in (3, 5, 8, 20) if m <= n], default=3)
        quote = (f"{cov:.3f}", str(tn), shape)
        short = cov < coverage.threshold(ct.table_level(level))
        assert got == (quote if short else None), (method, n)
        if n >= 3:
            assert (warn is not None) == short, (method, n)
            assert warn is None or STATS.search(warn).groups() == quote
        elif n >= 2:
            assert "below the smallest tabulated n (3)" in warn
        else:
            assert warn is None  # one seed: no interval at all


def test_too_few_seeds_for_bootstrap_t_fires_and_enough_is_clean():
    """bootstrap-t of a paired accuracy difference covers 0.853 at 3 seeds, 0.943 at 5 (flag: < 0.93)."""
    got = [f for f in lint(plan(3, contrast="bootstrap_t")) if f.rule == "interval-coverage"]
    assert [f.path for f in got] == ["$.analysis.contrasts.intervals[0]"]
    assert "covered only 0.853 at n=3 seeds (paired_bounded data" in got[0].message
    assert "and 3 seeds are registered; the t interval covered 0.946 there" in got[0].message
    assert "interval-coverage" not in {f.rule for f in lint(plan(5, contrast="bootstrap_t"))}
    assert "interval-coverage" not in {f.rule for f in lint(plan(3))}  # t holds its rate at 3 seeds


def test_below_the_table_reads_the_smallest_n():
    """2 seeds: the fallback reads n=3 (where percentile already under-covers) and says so."""
    [f] = [f for f in lint(plan(2, arm="percentile")) if f.rule == "interval-coverage"]
    assert "at n=3 seeds (bounded data" in f.message and "and 2 seeds are registered" in f.message
    assert ct.lookup("percentile", 2, "bounded")[1] == 3 == coverage.lookup("percentile", 1, "bounded")[1]


def test_lookup_without_a_cell_or_table():
    assert ct.lookup("wild", 5) is None
    assert ct.lookup("t", 5, "no-such-shape") is None
    assert ct.lookup("t", 5, table={"rows": []}) is None
    assert ct.read(ROOT / "no-such-table.json") is None
    assert ct.shipped() == coverage.load_table()  # one file, read by both


UNTABULATED = re.compile(r"coverage at `(\d+)%` not tabulated \(`stats coverage` tabulates `95%`, `90%`\)")


@pytest.mark.parametrize("level", [0.99, 0.8])
@pytest.mark.parametrize("method", METHODS)
def test_an_untabulated_level_is_said_so_never_read_at_another_level(method, level):
    """A 99% (or 80%) interval used to be read at the 95% row (flag threshold 0.93): lint and
    ``stats analyze`` now both say the level is not tabulated and quote no coverage figure."""
    assert ct.table_level(level) is None
    for n in (2, 3, 5, 8, 20):
        assert ct.lookup(method, n, ("paired_bounded",), level=level) is None
        [f] = interval_coverage(plan(n, contrast=method, level=level))
        warn = coverage.warning_for("percentile" if method == "paired_bootstrap" else method, n, level,
                                    "heldout_accuracy", contrast=True)
        for text in (f.message, warn):
            assert UNTABULATED.search(text).group(1) == f"{level * 100:g}" and "covered" not in text
        assert f.path == "$.analysis.contrasts.intervals[0]" and f"at {n} seeds" in f.message
        assert f"at n={n} seeds" in warn


def test_a_99_percent_percentile_interval_no_longer_borrows_the_95_row():
    """Firing before the fix: at 3 seeds the 95% percentile row (0.767 < 0.93) was quoted for a 99%
    interval. Clean side: the 95% and 90% plans still quote their own rows."""
    [f99] = interval_coverage(plan(3, contrast="percentile", level=0.99))
    assert "0.767" not in f99.message and "not tabulated" in f99.message
    [f95] = interval_coverage(plan(3, contrast="percentile", level=0.95))
    [f90] = interval_coverage(plan(3, contrast="percentile", level=0.9))
    c95 = ct.lookup("percentile", 3, ("paired_bounded",), level=0.95)[0]
    c90 = ct.lookup("percentile", 3, ("paired_bounded",), level=0.9)[0]
    assert c95 != c90
    assert f"covered only {c95:.3f}" in f95.message and f"covered only {c90:.3f}" in f90.message
    assert ct.untabulated(0.95) is None and ct.untabulated(0.9) is None
    assert ct.levels() == (0.95, 0.9) and ct.levels({"rows": []}) == ()
    assert ct.untabulated(0.99, table={"rows": []}) is None  # no table: nothing to say


def test_the_table_is_parsed_once_and_both_readers_read_the_parsed_one(monkeypatch):
    """``prereg.coverage_table.Table`` is the shipped JSON parsed once (cells and the clustered null
    study as frozen values); lint (interval-coverage, item-level-pooled) and ``stats analyze``'s
    warning read that one value: replace it and every reader moves."""
    from prereg.lint_inference import item_level_pooled

    t = ct.shipped_table()
    assert ct.parsed() is t and ct.shipped_table() is t  # parsed once per process
    assert list(t.cells) == ct.cells(ct.shipped()) and t.seeds == tuple(ct.shipped()["seeds"])
    raw = {(r["method"], r["sigma"]): r["rejection_rate"] for r in ct.shipped()["clustered"]["rows"]}
    assert {(r.method, r.sigma): r.rejection_rate for r in t.clustered} == raw
    d = plan(3, contrast="percentile")
    d["analysis"]["contrasts"]["item_level"] = "mcnemar"
    [pooled] = item_level_pooled(d)
    assert f"0: {raw[('mcnemar_pooled', 0.0)]:.3f}" in pooled.message
    assert interval_coverage(d) and coverage.warning_for("percentile", 3, 0.95, "heldout_accuracy", contrast=True)
    # a table where every method holds its level and the pooled test is exact: all readers go quiet
    fixed = ct.Table(tuple(dataclasses.replace(c, coverage=c.level) for c in t.cells), t.seeds,
                     tuple(dataclasses.replace(r, rejection_rate=0.05) for r in t.clustered))
    monkeypatch.setattr(ct, "shipped_table", lambda: fixed)
    assert interval_coverage(d) == []
    assert coverage.warning_for("percentile", 3, 0.95, "heldout_accuracy", contrast=True) is None
    [pooled] = item_level_pooled(d)
    assert f"0: {raw[('mcnemar_pooled', 0.0)]:.3f}" not in pooled.message and "0: 0.050" in pooled.message
