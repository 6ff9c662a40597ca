"""The pytest module of a report set, written once (README failure 15).

A set's test module (``tests/test_report_corpus_<set>.py``) is its docstring, the set's own
checks (size, studies) and one line::

    globals().update(set_tests.tests(SET, "fresh", FAST))

which defines, under the names every set's module had when each carried its own copy:

- ``test_clean_<label>_report_has_no_finding``: the clean report audits with zero findings;
- ``test_clean_<label>_report_has_no_finding_strict``: the same under ``--strict``;
- ``test_<label>_plant_is_caught``: each plant caught by a finding at its line, with its check and
  message, that the clean report does not have (:func:`tests.report_corpus.sets.caught`);

a known defect (``clean_xfail.txt`` / ``strict_xfail.txt``, a plant's ``"xfail"``) is a strict
xfail naming it; plants outside ``fast`` are ``slow``. The module fixtures ``built`` (report
folders by name), ``clean_findings`` and the autouse ``_recompute_once`` come with them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.report_corpus import corpus, sets


def show(findings) -> list[tuple]:
    """Findings as comparable tuples (check, file:line, message, expected, found): an assertion's message."""
    return [(f.check, Path(f.location).name, f.message, f.expected, f.found) for f in findings]


def clean_param(name: str, reason: str, slow_known: bool = False):
    """Report ``name`` as a parameter: a strict xfail with ``reason`` when a defect keeps it from
    auditing clean (also ``slow`` with ``slow_known``: a known failure need not cost the fast tier)."""
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    if reason and slow_known:
        marks.append(pytest.mark.slow)
    return pytest.param(name, marks=marks, id=name)


def fixtures(report_set, label: str) -> dict:
    """The module fixtures of a set's tests: ``_recompute_once`` (autouse: check 9 recomputes each
    study's analysis once for all its plants), ``built`` and ``clean_findings``.

    ``report_set`` is a :class:`sets.ReportSet` or anything with its ``names()`` and
    ``build(name, root)`` (the corpus module itself, ``tests/test_report_corpus.py``)."""
    from audit import check

    @pytest.fixture(scope="module", autouse=True)
    def _recompute_once():
        with corpus.recompute_once():
            yield

    @pytest.fixture(scope="module")
    def built(tmp_path_factory):
        root = tmp_path_factory.mktemp(label)
        return {n: report_set.build(n, root / n) for n in report_set.names()}

    @pytest.fixture(scope="module")
    def clean_findings(built):
        return {n: check(built[n]).findings for n in built}

    return {"_recompute_once": _recompute_once, "built": built, "clean_findings": clean_findings}


def tests(report_set: sets.ReportSet, label: str, fast: list, *, slow_known: bool = False) -> dict:
    """Every shared test (and fixture) of a report set's test module, by the name it goes under.

    Args:
        report_set: the set.
        label: its name in test names and temporary folders (``fresh`` -> ``test_fresh_plant_is_caught``).
        fast: the plants the fast tier (``-m "not slow"``) audits; every other plant is ``slow``.
        slow_known: a clean report with a known defect runs in the full tier only.

    Returns:
        name -> fixture or test function, for the module's ``globals().update``.
    """
    from audit import check

    names = report_set.names()
    every = [p for n in names for p in report_set.plants(n)]

    @pytest.mark.parametrize("name", [clean_param(n, report_set.known(n, "clean"), slow_known) for n in names])
    def clean(clean_findings, name):
        assert show(clean_findings[name]) == []

    @pytest.mark.parametrize("name", [clean_param(n, report_set.known(n, "strict"), slow_known) for n in names])
    def strict(built, name):
        assert show(check(built[name], strict=True).findings) == []

    @pytest.mark.parametrize("plant", [corpus.plant_param(p, fast) for p in every])
    def plant_is_caught(built, clean_findings, tmp_path, plant):
        clean_report = built[plant.report]
        shutil.copytree(clean_report.parent, tmp_path / "study")
        rep = tmp_path / "study" / clean_report.name
        line = corpus.apply(rep, plant)
        findings = check(rep).findings
        assert sets.caught(findings, clean_findings[plant.report], plant, line), show(findings)

    return {**fixtures(report_set, label),
            f"test_clean_{label}_report_has_no_finding": clean,
            f"test_clean_{label}_report_has_no_finding_strict": strict,
            f"test_{label}_plant_is_caught": plant_is_caught}


def own_studies(report_set: sets.ReportSet, names: list[str], min_plants: int) -> dict[str, dict]:
    """Check a blind set's size and independence, and return its ``study.json`` specs by report.

    Every set must hold at least five reports over studies no other set uses (an id shared with an
    earlier set would let a reading tuned on that set pass here unseen), each with ``min_plants`` plants
    of distinct kinds, all for check 10. What a set adds (layouts, plans) its own test asserts.
    """
    assert len(names) >= 5
    folder = report_set.folder
    specs = {n: json.loads((folder / n / "study.json").read_text()) for n in names}
    for n in names:
        every = report_set.all_plants(n) if hasattr(report_set, "all_plants") else report_set.plants(n)
        kinds = [p.kind for p in every]
        assert len(set(kinds)) == len(kinds) >= min_plants, n
        assert all(p.check == "10" for p in every), n
    ids = {s["id"] for s in specs.values()}
    others = {json.loads(p.read_text())["id"] for p in (corpus.REPO / "tests").glob("report_corpus*/*/study.json")
              if p.parent.parent != folder}
    assert len(ids) == len(names) and not ids & others, sorted(ids & others)
    return specs


def lazy_builds(build, tmp_path_factory, label: str):
    """``name -> built study``, each built the first time a test asks for it (a module-scoped fixture's
    body for the readings tests, which use a few of a set's studies each).

    Args:
        build: the set's ``build(name, root)``.
        tmp_path_factory: pytest's.
        label: the set's name, for the temporary folders.
    """
    built: dict = {}

    def get(name):
        if name not in built:
            built[name] = build(name, tmp_path_factory.mktemp(f"{label}_{name}"))
        return built[name]

    return get


def written_findings(study, tmp_path, text, name="report.md") -> list[tuple]:
    """Audit ``text`` written as report ``name`` beside ``study``: its findings as (file:line, expected,
    found, message), the other report files' left out."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {name: text})
    return [(f.location.rsplit("/", 1)[-1], f.expected, f.found, f.message) for f in res.findings
            if f.location.rsplit("/", 1)[-1].startswith(name)]
