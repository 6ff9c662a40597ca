"""The hand-written report corpus: studies, clean reports, and the errors planted in them.

Each folder under ``tests/report_corpus/`` is one study and one report as a researcher would
type it (a model card, a README table, a paper section), never in the renderer's format:

- ``study.json``: the preregistration, as a patch over ``examples/e1.json`` (arms, seeds,
  held-out n, multiplicity family, ...), and the per-seed results table the study imports;
- ``report.md`` or ``paper.tex``: the clean report, every number in it right;
- ``plants.json``: the planted errors, as data: ``{"kind", "file", "find", "replace", "check",
  "message"}``. ``find`` occurs exactly once in the clean report; the audit must report the
  planted error with ``check`` at the planted line and a message containing ``message``.

``build(name, root)`` locks the study, writes the table, runs ``stats analyze`` on it and
copies the report next to ``analysis.json``; ``measure()`` gives the catch rate and the false
alarms over the whole corpus (``python -m tests.report_corpus.corpus``). README failure 15.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import pickle
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
LOCKED_AT = "2026-01-01T00:00:00.000000Z"
REPORT_SUFFIXES = (".md", ".tex", ".bib", ".qmd", ".Rmd")   # a .bib file is a report file too: its numbers are citations


@dataclass(frozen=True)
class Plant:
    """One planted error: where it goes, what replaces what, and what must catch it."""

    report: str
    kind: str
    file: str
    find: str
    replace: str
    check: str
    message: str


@dataclass(frozen=True)
class KnownPlant(Plant):
    """A plant of a report set written over the corpus studies (review, wild), plus the defect that
    keeps it from being caught (empty when it is caught)."""

    xfail: str = ""


def reports_over_studies(folder: Path) -> list[str]:
    """The reports of a set written over corpus studies: one folder each, holding ``study.txt``."""
    return sorted(p.parent.name for p in folder.glob("*/study.txt"))


def study_of(folder: Path, name: str) -> str:
    """The study report ``name`` of such a set is about (the first line of its ``study.txt``)."""
    return (folder / name / "study.txt").read_text().strip()


def audit_written(study: Path, folder: Path, files: dict[str, str], strict: bool = False):
    """Audit a copy of a built study (into ``folder``) whose report Markdown is replaced by ``files``
    (name -> text typed by hand): the probing tests' one way to put a report in place."""
    from audit import check

    shutil.copytree(study.parent, folder / "s")
    rep = folder / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    for name, text in files.items():
        (rep / name).write_text(text)
    return check(rep, strict=strict)


def put_report(report: Path, folder: Path) -> Path:
    """Replace the report files of a built study's ``report`` folder with those of ``folder``
    (a review or wild report written over that study)."""
    for f in report.iterdir():
        if f.suffix in REPORT_SUFFIXES:
            f.unlink()
    for f in folder.iterdir():
        if f.suffix in REPORT_SUFFIXES:
            shutil.copyfile(f, report / f.name)
    return report


def known_plants(folder: Path, name: str) -> list[KnownPlant]:
    """The planted errors of report ``name`` of a set written over corpus studies (its plants.json)."""
    rows = json.loads((folder / name / "plants.json").read_text())
    return [KnownPlant(report=name, **row) for row in rows]


def known_defect(folder: Path, name: str, what: str) -> str:
    """The documented defect that keeps report ``name`` of a set from auditing clean, or ''.

    A set folder's report may hold ``clean_xfail.txt`` / ``strict_xfail.txt`` (``what`` is ``clean``
    or ``strict``): the tests mark that report's clean audit a strict xfail with this reason.
    """
    f = folder / name / f"{what}_xfail.txt"
    return f.read_text().strip() if f.is_file() else ""


def names() -> list[str]:
    """The corpus reports, in order (one folder each)."""
    return sorted(p.parent.name for p in HERE.glob("*/study.json"))


def apply_patch(prereg: dict, patch: dict | None) -> dict:
    """Set each dotted path of a study's ``"patch"`` (``{"analysis.multiplicity.method": "holm"}``)
    in ``prereg``, in place: one way for every study generator to vary the plan."""
    for path, value in (patch or {}).items():
        node = prereg
        *head, leaf = path.split(".")
        for k in head:
            node = node[k]
        node[leaf] = value
    return prereg


def study_prereg(spec: dict) -> dict:
    """The preregistration of a corpus study: examples/e1.json narrowed and patched by ``spec``."""
    p = copy.deepcopy(json.loads((REPO / "examples" / "e1.json").read_text()))
    p["id"] = spec["id"]
    p["title"] = spec.get("title", p["title"])
    arms = spec["arms"]
    p["arms"] = {a: p["arms"][a] for a in arms}
    p["baseline_arm"] = spec.get("baseline", "grpo")
    p["analysis"]["contrasts"]["baseline"] = p["baseline_arm"]
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] in arms and h["baseline"] == p["baseline_arm"]]
    p["seeds"] = spec["seeds"]
    p["dataset"]["heldout_n"] = spec["heldout_n"]
    fam = [f"{a}-{p['baseline_arm']}" for a in arms if a != p["baseline_arm"]]
    p["analysis"]["multiplicity"]["family"] = fam
    p["analysis"]["resamples"] = spec.get("resamples", 2000)
    apply_patch(p, spec.get("patch"))
    return p


def _table(spec: dict) -> str:
    data = spec["data"]
    metrics = list(next(iter(data.values())).keys())
    rows = [",".join(["arm", "seed", *metrics])]
    for arm, cols in data.items():
        for i, seed in enumerate(spec["seeds"]):
            rows.append(",".join([arm, str(seed), *(repr(cols[m][i]) for m in metrics)]))
    return "\n".join(rows) + "\n"


def _study12(spec: dict, table: Path) -> dict:
    """A per-item study with reference arms and mixed units (``tests/study12.py``: base model and SFT
    evaluated once, GRPO over seeds; fraction, percent and 0-4 count metrics), one session unless
    ``spec["sessions"]`` names several (session -> arms evaluated in it)."""
    sys.path.insert(0, str(REPO / "tests"))
    import study12

    p = study12.prereg(**spec.get("analysis", {}))
    p["id"] = spec["id"]
    apply_patch(p, spec.get("patch"))
    rows = study12.rows(seed=spec.get("seed", 0), sessions=spec.get("sessions") or {"s1": ["base", "sft", "grpo"]},
                        abilities=spec.get("abilities"))
    study12.write_csv(table, rows)
    return p


def lock_and_analyze(prereg: dict, root: Path) -> Path:
    """Lock ``prereg`` under ``root/locks`` and analyse ``root/results.csv`` into ``root/report``
    (the tail every set's study builder shares); returns the report folder."""
    from prereg.jsonio import write_json_atomic
    from prereg.lock import build_lock
    from stats.analyze import analyze, write

    lock_rel = f"locks/{prereg['id']}.lock.json"
    write_json_atomic(root / lock_rel, build_lock(prereg, now=LOCKED_AT))
    old = os.getcwd()
    os.chdir(root)
    try:
        a = analyze(lock_rel, "results.csv")
        write(a, "report/analysis.json", overwrite=True)
        seed_recompute(lock_rel, "results.csv", a)
    finally:
        os.chdir(old)
    return root / "report"


def seed_recompute(lock_path, runs_path, analysis: dict) -> None:
    """Keep ``analysis`` (what ``stats analyze`` just computed from ``lock_path`` and ``runs_path``) as
    check 9's recomputation of those inputs (:func:`recompute_once`), so that a built study's
    analysis is not computed a second time by the first audit of it.

    Check 9 recomputes with ``log_look=False`` and ``validate=False``, which change nothing in the
    result of a study that is not sequential (a look is only logged for a sequential one, and
    validation only reads); a sequential study is not kept. ``tests/test_built_once.py`` compares a
    kept result with check 9's own recomputation. Only within a test session (:data:`BUILD_CACHE`).
    """
    if BUILD_CACHE is None:
        return
    plan = json.loads(Path(lock_path).read_text()).get("preregistration", {})
    if plan.get("analysis", {}).get("sequential"):
        return
    key = _inputs_digest(Path(lock_path), Path(runs_path))
    _kept_on_disk(key, lambda: pickle.dumps(analysis, pickle.HIGHEST_PROTOCOL))


# The folder where the test session keeps each study it has built once (``tests/conftest.py::_built_once``
# sets it; None outside pytest: ``python -m tests.report_corpus_<set>.<set>`` builds every study itself).
BUILD_CACHE: Path | None = None


def built_once(key: str, root: Path, make) -> None:
    """Build a deterministic study tree under ``root`` with ``make(root)``, or copy the tree that an
    earlier ``make`` with the same ``key`` built in this test session (:data:`BUILD_CACHE`).

    Why: a study's lock, import and analysis cost ~1.4 CPU-s and ~40 test modules build the same
    few dozen studies (a set's module, then the readings modules over the same reports); the
    build writes relative paths only and the same bytes every time (``tests/test_built_once.py``
    checks a copy against a fresh build), so a copy (milliseconds) is the same input to the
    audit. ``key`` names everything the tree depends on beyond the session's code (the study's
    spec bytes). Under xdist the workers share the cache folder; a file lock makes the first
    worker build and the others wait and copy. Without a cache (outside pytest) it builds.
    """
    if BUILD_CACHE is None:
        make(root)
        return
    import hashlib

    from filelock import FileLock

    done = BUILD_CACHE / hashlib.sha256(key.encode()).hexdigest()[:24]
    with FileLock(str(done) + ".lock"):
        if not (done / "built").is_file():
            shutil.rmtree(done, ignore_errors=True)
            make(done / "tree")
            (done / "built").write_text(key)
    shutil.copytree(done / "tree", root, dirs_exist_ok=True)


def _build_study(spec: dict, root: Path) -> None:
    """Lock, import and analyse the study ``spec`` under ``root`` (no report files)."""
    root.mkdir(parents=True, exist_ok=True)
    if spec.get("generator") == "study12":
        prereg = _study12(spec, root / "results.csv")
    else:
        prereg = study_prereg(spec)
        (root / "results.csv").write_text(_table(spec))
    lock_and_analyze(prereg, root)


def build(name: str, root: Path, folder: Path = HERE) -> Path:
    """Lock, import and analyse study ``name`` (``folder/name/study.json``, by default a corpus study)
    under ``root`` (once a session: :func:`built_once`); returns the report folder, holding the
    study's report files."""
    text = (folder / name / "study.json").read_text()
    spec = json.loads(text)
    built_once("corpus.build\0" + text, root, lambda dst: _build_study(spec, dst))
    report = root / "report"
    for f in (folder / name).iterdir():
        if f.suffix in REPORT_SUFFIXES:
            shutil.copyfile(f, report / f.name)
    return report


def plants(name: str) -> list[Plant]:
    """The planted errors of report ``name``."""
    rows = json.loads((HERE / name / "plants.json").read_text())
    return [Plant(report=name, **row) for row in rows]


def fast_plants(plants: list[Plant]) -> list[Plant]:
    """The plants of one report set that the fast tier (``pytest -m "not slow"``) audits.

    Each plant costs one audit of a whole study, so the fast tier keeps a fixed, representative
    subset and the full run (``pytest``, CI) audits every plant. Walking ``plants`` in their order
    (report by report, as in each ``plants.json``), a plant is kept when it is the first of its
    report or the first of its kind in the set, and it is expected to be caught (a plant with a
    known defect, ``xfail``, stays in the full run, where its strict mark still fails the day the
    defect is fixed). Every report layout and every kind of error is thus caught at least once in
    the fast tier.

    Args:
        plants: every plant of the set, in report order.

    Returns:
        The kept plants, in the same order.

    Example:
        >>> fast = fast_plants([p for n in names() for p in plants(n)])
    """
    reports: set[str] = set()
    kinds: set[str] = set()
    out = []
    for p in plants:
        if getattr(p, "xfail", ""):
            continue
        if p.report not in reports or p.kind not in kinds:
            out.append(p)
        reports.add(p.report)
        kinds.add(p.kind)
    return out


def _inputs_digest(lock_path: Path, runs_path: Path) -> str:
    """SHA-256 over the lock's bytes and every file under ``runs_path`` (or the table file)."""
    import hashlib

    h = hashlib.sha256(Path(lock_path).read_bytes())
    runs = Path(runs_path)
    for p in [runs] if runs.is_file() else sorted(runs.rglob("*")):
        if p.is_file():
            h.update(b"\0" + str(p.relative_to(runs) if p != runs else p.name).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _kept_on_disk(key: str, compute) -> bytes:
    """``compute()``'s bytes, kept under :data:`BUILD_CACHE` by ``key`` (a SHA-256 of the inputs) for
    every module and xdist worker of the session; without a cache, computed each time asked."""
    if BUILD_CACHE is None:
        return compute()
    from filelock import FileLock

    path = BUILD_CACHE / "recompute" / f"{key}.pickle"
    path.parent.mkdir(exist_ok=True)
    with FileLock(str(path) + ".lock"):
        if not path.is_file():
            data = compute()
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
            return data
    return path.read_bytes()


@contextlib.contextmanager
def recompute_once(kept: dict | None = None, study_kept: dict | None = None):
    """Within the block, audit check 9 recomputes the analysis once per distinct set of inputs.

    Every plant of a report set is audited over a copy of the same study (only the report
    differs), so check 9 would recompute the same analysis from byte-identical lock and records
    for each plant. The recomputation is deterministic (byte-identical reruns), so a result is
    kept (pickled) by the SHA-256 of the lock's and the records' bytes and handed out again (a fresh copy);
    check 9 still compares it with each copy's ``analysis.json``. An input that differs in one
    byte is recomputed; a recomputation that raises is not kept. ``kept`` (digest -> result) carries
    the results beyond the block (``tests/conftest.py::shared_recompute``); by default a new one.
    Within a test session the results are also kept on disk beside the built studies
    (:data:`BUILD_CACHE`), so each study is recomputed once for all modules and workers.
    The block also runs the audit's other checks of the study's records once per distinct study
    (:func:`tests.report_corpus.study_checks.study_checks_once`, kept in ``study_kept``).
    """
    import audit.checks.analysis as check9
    from tests.report_corpus.study_checks import study_checks_once

    real = check9.recompute
    kept = {} if kept is None else kept

    def once(lock_path, runs_path, analysis, files=None):
        if runs_path is None or not Path(runs_path).exists() or not Path(lock_path).is_file():
            return real(lock_path, runs_path, analysis, files)
        key = _inputs_digest(lock_path, runs_path)
        if key not in kept:
            kept[key] = _kept_on_disk(key, lambda: pickle.dumps(real(lock_path, runs_path, analysis, files),
                                                                pickle.HIGHEST_PROTOCOL))
        return pickle.loads(kept[key])  # a fresh copy, as deepcopy gives, ~7x cheaper

    check9.recompute = once
    try:
        with study_checks_once(study_kept):
            yield
    finally:
        check9.recompute = real


def plant_param(plant: Plant, fast: list[Plant]):
    """``plant`` as a pytest parameter: ``xfail(strict)`` with its known defect, ``slow`` unless in ``fast``."""
    import pytest

    marks = []
    if getattr(plant, "xfail", ""):
        marks.append(pytest.mark.xfail(strict=True, reason=plant.xfail))
    if plant not in fast:
        marks.append(pytest.mark.slow)
    return pytest.param(plant, marks=marks, id=f"{plant.report}:{plant.kind}")


def apply(report: Path, plant: Plant) -> int:
    """Write ``plant`` into the report copy under ``report``; returns the planted line (1-based)."""
    path = report / plant.file
    text = path.read_text()
    if text.count(plant.find) != 1:
        raise ValueError(f"{plant.report}/{plant.file}: {plant.find!r} occurs {text.count(plant.find)} times")
    at = text.index(plant.find)
    path.write_text(text.replace(plant.find, plant.replace))
    return text.count("\n", 0, at) + plant.find[:len(plant.find) - len(plant.find.lstrip("\n"))].count("\n") + 1


def caught(findings, plant: Plant, line: int) -> list:
    """Findings that catch ``plant``: its check, at its line, with its message."""
    out = []
    for f in findings:
        text = f"{f.message} {f.expected} {f.found}"
        if f.check == plant.check and f.location.endswith(f"{plant.file}:{line}") and plant.message in text:
            out.append(f)
    return out


def audit(report: Path):
    from audit import run_audit

    return run_audit(report).findings


def measure(tmp: Path) -> dict:
    """Catch rate and false alarms over the corpus: {report: (caught, planted, clean findings)}."""
    out = {}
    for name in names():
        clean = build(name, tmp / name / "clean")
        alarms = audit(clean)
        got = 0
        ps = plants(name)
        for i, p in enumerate(ps):
            rep = tmp / name / f"p{i}" / "report"
            shutil.copytree(clean.parent, rep.parent, dirs_exist_ok=True)
            line = apply(rep, p)
            got += bool(caught(audit(rep), p, line))
        out[name] = (got, len(ps), len(alarms))
    return out


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        res = measure(Path(d))
    tot = [sum(v[i] for v in res.values()) for i in range(3)]
    for name, (got, n, alarms) in res.items():
        print(f"{name:24s} caught {got:3d}/{n:<3d} false alarms on the clean report: {alarms}")
    print(f"{'total':24s} caught {tot[0]:3d}/{tot[1]:<3d} ({100 * tot[0] / max(tot[1], 1):.1f}%) "
          f"false alarms: {tot[2]} over {len(res)} clean reports")
    return 0 if tot[0] == tot[1] and tot[2] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
