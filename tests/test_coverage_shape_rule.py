"""One rule for which coverage row decides a plan's warning (issue 15; README failures 10 and 16).

Before: ``prereg lint`` decided that a metric is a fraction from a fixed name list
(``FRACTION_METRICS``, which called ``heldout_reward_mean`` a fraction and ignored the plan's
``metrics`` declarations) and read every other metric as ``normal`` data; ``stats analyze`` ignored
the declared unit too (its own name list) and read every other metric at the worst shape. Now both
read the metric's unit through ``prereg.declarations.unit_of`` (the declared unit; the task's
default only where the plan declares none) and the shape and flag line through
``prereg.coverage_table.short``.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from prereg import coverage_table as ct
from prereg import declarations
from prereg.declarations import metric_decls, unit_of
from prereg.lint_inference import interval_coverage
from prereg.schema import schema_errors
from stats import coverage

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())
LINT = re.compile(r"covered only (\d\.\d{3}) at n=(\d+) seeds \((\w+) data")
STATS = re.compile(r"covered `(\d\.\d{3})` at `n=(\d+)` \((\w+) data\)")
# (primary metric, its declaration or None): declared units, task defaults, and names nobody declares
METRICS = [("pass_rate", {"unit": "fraction"}), ("format_pct", {"unit": "percent"}),
           ("groups_solved", {"unit": "count", "max": 4}), ("score", {"unit": "real"}),
           ("heldout_accuracy", None), ("heldout_reward_mean", None), ("accuracy", None), ("custom", None),
           ("heldout_accuracy", {"unit": "real"})]  # a declaration overrides the task default
METHODS = ("percentile", "bca", "bootstrap_t", "t")


def plan(metric: str, decl: dict | None, n: int, method: str, *, stat: str = "mean", check: bool = True) -> dict:
    d = copy.deepcopy(E1)
    d["seeds"] = list(range(1, n + 1))
    d["analysis"]["primary_metric"] = metric
    d["analysis"]["arm_summary"] = {"statistics": [stat], "interval": method, "level": 0.95}
    d["analysis"]["contrasts"]["intervals"] = [{"method": method, "level": 0.95}]
    if decl is not None:
        d["metrics"] = {metric: decl}
    assert not check or schema_errors(d, "preregistration") == []
    return d


def lint_quotes(d: dict) -> dict[str, tuple[str, str, str] | None]:
    """Lint's quoted (coverage, n, shape) for the arm interval and the contrast interval."""
    got = {f.path: LINT.search(f.message).groups() for f in interval_coverage(d)}
    return {"arm": got.get("$.analysis.arm_summary.interval"), "contrast": got.get("$.analysis.contrasts.intervals[0]")}


def stats_quote(d: dict, method: str, *, contrast: bool, stat: str = "mean") -> tuple[str, str, str] | None:
    w = coverage.warning_for(method, len(d["seeds"]), 0.95, d["analysis"]["primary_metric"], contrast=contrast,
                             stat=stat, decls=metric_decls(d))
    return STATS.search(w).groups() if w else None


@pytest.mark.parametrize(("metric", "decl"), METRICS)
def test_lint_and_stats_quote_the_same_row_for_every_unit(metric, decl):
    """For each unit (declared or default), method and tabulated n, lint fires exactly when
    ``stats analyze``'s warning does, for the arm and the contrast interval, quoting the same row."""
    for n in (3, 5, 8, 20):
        for method in METHODS:
            d = plan(metric, decl, n, method, check=n == 3 and method == "t")
            got = lint_quotes(d)
            assert got["arm"] == stats_quote(d, method, contrast=False), (metric, n, method)
            assert got["contrast"] == stats_quote(d, method, contrast=True), (metric, n, method)


def test_the_declared_unit_decides_not_the_name():
    """Firing where the two places disagreed before, clean where the rule says bounded data."""
    # a declared fraction (no name list knows "pass_rate"): bounded, t holds its level at 3 seeds
    d = plan("pass_rate", {"unit": "fraction"}, 3, "t")
    assert lint_quotes(d) == {"arm": None, "contrast": None}
    assert stats_quote(d, "t", contrast=True) is None  # stats used to read it at the worst shape (lognormal)
    # heldout_reward_mean is a real-valued reward (task default), not a fraction (lint's old list said it was)
    assert unit_of("heldout_reward_mean") == "real"
    d = plan("heldout_reward_mean", None, 3, "t")
    assert lint_quotes(d)["contrast"] == stats_quote(d, "t", contrast=True) == ("0.830", "3", "lognormal")
    # a percent is a fraction times 100: the same bounded row
    d = plan("format_pct", {"unit": "percent"}, 3, "percentile")
    assert lint_quotes(d)["contrast"][2] == "paired_bounded" and lint_quotes(d)["arm"][2] == "bounded"
    # declaring heldout_accuracy real overrides the task's fraction
    d = plan("heldout_accuracy", {"unit": "real"}, 3, "t")
    assert lint_quotes(d)["contrast"] == ("0.830", "3", "lognormal")
    assert lint_quotes(plan("heldout_accuracy", None, 3, "t"))["contrast"] is None


def test_a_median_is_read_at_the_continuous_shapes_in_both():
    d = plan("pass_rate", {"unit": "fraction"}, 3, "percentile", stat="median")
    got = lint_quotes(d)["arm"]
    assert got is not None and got[2] in ("normal", "lognormal")
    assert got == stats_quote(d, "percentile", contrast=False, stat="median")


def test_breaking_the_one_rule_changes_both_readers(monkeypatch):
    """The rule lives in one place: make every unit read as ``normal`` data there and both lint and
    ``stats analyze`` move together (they would not if either kept its own copy)."""
    d = plan("heldout_reward_mean", None, 3, "t")
    assert lint_quotes(d)["contrast"] is not None and stats_quote(d, "t", contrast=True) is not None
    monkeypatch.setattr(ct, "shapes", lambda unit, *, contrast, stat="mean": ("normal",))
    assert lint_quotes(d) == {"arm": None, "contrast": None}  # t covers 0.946 on normal data at n=3
    assert stats_quote(d, "t", contrast=True) is None
    monkeypatch.undo()
    monkeypatch.setattr(ct, "threshold", lambda level: 0.0)  # the one flag line: nothing is short
    assert lint_quotes(d) == {"arm": None, "contrast": None} and stats_quote(d, "t", contrast=True) is None


def test_the_name_list_is_one_list(monkeypatch):
    """The run-folder name list (task defaults) is read by lint's coverage rule, stats' shape and
    stats' analysis.json units alike: change a default there and every reader follows."""
    from stats.load import UNITS

    assert {m: UNITS[m] for m in declarations.RUN_METRICS} == {
        m: "reward" if u == "real" else u for m, (u, _, _) in declarations.RUN_METRICS.items()}
    d = plan("heldout_accuracy", None, 3, "t")
    assert lint_quotes(d)["contrast"] is None and stats_quote(d, "t", contrast=True) is None
    monkeypatch.setitem(declarations.RUN_METRICS, "heldout_accuracy", ("real", True, ()))
    assert lint_quotes(d)["contrast"] == stats_quote(d, "t", contrast=True) == ("0.830", "3", "lognormal")
