"""The public API's docstrings (README "The same from Python") hold: each stage's function has its
full signature documented (Args for every parameter, Returns, Example), the examples run as
doctests on the packaged demo study (a synthetic campaign, no training), and failures are
library exceptions (UserError / Refusal) that print nothing: only the CLIs' ``run_cli`` turns
them into one ``error:`` line and exit 2.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re

import pytest

from prereg import Refusal, UserError

API = [("prereg", "lock"), ("prereg", "verify"), ("runner", "run_unit"), ("runner", "run_sweep"),
       ("runner", "evaluate_reference"), ("stats", "analyze"), ("stats", "render"), ("audit", "check")]
# modules whose docstring examples must all run (every skipped one is listed in SKIPPED)
DOCTESTED = ["prereg.api", "runner.api", "stats.api", "stats.result", "audit", "stats.synthetic", "prereg.schema",
             "stats.curves"]
SKIPPED = {"runner.api": 3}   # the training calls: a unit, a sweep, a reference evaluation (shown, not run)


def _func(pkg: str, name: str):
    return getattr(importlib.import_module(pkg), name)


@pytest.mark.parametrize("pkg,name", API)
def test_each_stage_documents_every_parameter_its_return_and_an_example(pkg, name):
    f = _func(pkg, name)
    doc = inspect.getdoc(f)
    assert doc and all(h in doc for h in ("Args:", "Returns:", "Example:")), f"{pkg}.{name}"
    args = doc.split("Args:", 1)[1].split("Returns:", 1)[0]
    for p in inspect.signature(f).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            assert re.search(rf"\*\*{p.name}\b", args), f"{pkg}.{name}: **{p.name} undocumented"
        else:
            assert re.search(rf"^\s*{p.name}:", args, re.M), f"{pkg}.{name}: {p.name} undocumented"
    assert f"from {pkg} import" in doc or pkg == "prereg" and "from prereg import" in doc


@pytest.mark.parametrize("mod", DOCTESTED)
def test_docstring_examples_run(mod):
    m = importlib.import_module(mod)
    finder = doctest.DocTestFinder()
    tests = finder.find(m)
    skipped = sum(1 for t in tests for ex in t.examples if ex.options.get(doctest.SKIP))
    assert skipped == SKIPPED.get(mod, 0), f"{mod}: {skipped} examples skipped"
    res = doctest.testmod(m, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 1 and res.failed == 0, res


def test_library_errors_are_exceptions_that_print_nothing(tmp_path, capsys):
    from audit import check
    from prereg import lock, verify
    from prereg.cli import template_bytes
    from runner import run_unit
    from stats import analyze, render

    (tmp_path / "demo.json").write_bytes(template_bytes("demo"))
    path = lock(tmp_path / "demo.json", lock_dir=tmp_path / "locks")
    calls = [(lambda: lock(tmp_path / "missing.json", lock_dir=tmp_path / "l2"), UserError, "missing.json"),
             (lambda: verify(tmp_path / "nope.lock.json"), UserError, "nope.lock.json"),
             (lambda: run_unit(path, "grpo", 99, tmp_path / "runs"), Refusal, "--seed 99"),
             (lambda: analyze(path, tmp_path / "no-runs"), UserError, "no-runs"),
             (lambda: render(tmp_path / "none.json", tmp_path / "r"), UserError, "none.json"),
             (lambda: check(tmp_path / "no-report"), UserError, "no-report")]
    for call, exc, needle in calls:
        with pytest.raises(exc) as info:
            call()
        assert needle in str(info.value) and "\n" not in str(info.value)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json", "locks"]  # nothing else written
