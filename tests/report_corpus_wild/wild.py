"""The wild set: hand-written reports in layouts neither corpus has, typed by a new user.

Each folder here is one report a researcher could have typed after reading the numbers off
``analysis.json`` by hand (own rounding, ordering and wording): a Hugging Face card with a
``model-index`` and an "Evaluation results" table with bold best values, arrows and daggers; a
LaTeX booktabs table with ``\\cmidrule``, siunitx ``S`` columns and ``\\textbf{}``; a blog-style
prose section with parenthetical intervals and "pp"; a GitHub README with a bullet per arm and
nested bullets per seed; a raw HTML ``<table>`` with ``colspan``; seeds as rows with a final
"mean" row; a card with base/SFT reference arms quoting "SFT − GRPO"; a changelog "v2 vs v1"
table over a runner-produced campaign. README failure 15.

``study.txt`` names the study the report is about: a ``tests/report_corpus/`` study (its
fixture is reused as is) or ``campaign`` (the runner-shaped campaign of ``tests/audit_defects.py``:
sealed manifests, traces, telemetry). ``plants.json`` has the corpus's plant format plus an
optional ``"xfail"``: the defect that keeps the plant from being caught. ``clean_xfail.txt`` /
``strict_xfail.txt`` name a defect that keeps the clean report from auditing clean.

``python -m tests.report_corpus_wild.wild [--strict]`` prints, per report, the plants caught and
the findings on the clean report, and lists every miss and false alarm.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.report_corpus import corpus

HERE = Path(__file__).resolve().parent
CAMPAIGN = "campaign"


Plant = corpus.KnownPlant


def names() -> list[str]:
    """The wild reports, in order (one folder each)."""
    return corpus.reports_over_studies(HERE)


def study(name: str) -> str:
    """The study report ``name`` is about: a corpus study name, or ``campaign``."""
    return corpus.study_of(HERE, name)


def _campaign(root: Path) -> Path:
    from tests import audit_defects

    camp = audit_defects.build_clean(root)
    for f in camp.report.iterdir():
        if f.suffix in corpus.REPORT_SUFFIXES:
            f.unlink()
    return camp.report


def build(name: str, root: Path) -> Path:
    """Build the study of ``name`` under ``root`` with this folder's report as its only report."""
    s = study(name)
    report = _campaign(root) if s == CAMPAIGN else corpus.build(s, root)
    return corpus.put_report(report, HERE / name)


def plants(name: str) -> list[Plant]:
    """The planted errors of wild report ``name``."""
    return corpus.known_plants(HERE, name)


def caught(findings, clean_findings, plant: Plant, line: int) -> list:
    """Findings that catch ``plant`` (its check, at its line, with its message) and that the clean
    report does not have already: a false alarm on the planted line does not count as a catch."""
    before = {(f.check, f.location.rsplit("/", 1)[-1], f.message) for f in clean_findings}
    return [f for f in corpus.caught(findings, plant, line)
            if (f.check, f.location.rsplit("/", 1)[-1], f.message) not in before]


def known(name: str, what: str) -> str:
    """The documented defect that keeps report ``name`` from auditing clean (``clean`` or ``strict``), or ''."""
    return corpus.known_defect(HERE, name, what)


@dataclass(frozen=True)
class Result:
    """One report's measurement: plants caught, plants planted, findings on the clean report."""

    caught: int
    planted: int
    alarms: int
    missed: tuple[str, ...]
    alarm_lines: tuple[str, ...]


def measure_one(name: str, tmp: Path, strict: bool = False, *, build_fn=None, plants_fn=None) -> Result:
    """Audit the clean report of ``name`` and each of its plants (each on its own copy).

    ``build_fn`` / ``plants_fn`` default to this set's; another set written the same way (the fresh
    set) passes its own."""
    from audit import check

    build_fn, plants_fn = build_fn or build, plants_fn or plants
    clean = build_fn(name, tmp / name / "clean")
    alarms = check(clean, strict=strict).findings
    got, missed = 0, []
    for i, p in enumerate(plants_fn(name)):
        rep = tmp / name / f"p{i}" / clean.name
        shutil.copytree(clean.parent, rep.parent, dirs_exist_ok=True)
        line = corpus.apply(rep, p)
        if caught(check(rep, strict=strict).findings, alarms, p, line):
            got += 1
        else:
            missed.append(f"{p.kind}: {p.find!r} -> {p.replace!r}")
        shutil.rmtree(rep.parent)
    lines = tuple(f"{f.check} {Path(f.location).name} {f.message} | {f.expected} | {f.found}" for f in alarms)
    return Result(got, len(plants_fn(name)), len(alarms), tuple(missed), lines)


def run_set(argv: list[str], all_names: list[str], build_fn=None, plants_fn=None) -> int:
    """Measure a report set from the command line (``[--strict] [NAME ...]``): print every miss and
    false alarm, then a table of plants caught and clean-report findings; 0 when all are caught and
    no clean report has a finding."""
    import tempfile

    strict = "--strict" in argv
    only = [a for a in argv if not a.startswith("--")] or all_names
    res = {}
    with tempfile.TemporaryDirectory() as d:
        for name in only:
            res[name] = r = measure_one(name, Path(d), strict=strict, build_fn=build_fn, plants_fn=plants_fn)
            for m in r.missed:
                print(f"  missed {name}: {m}")
            for a in r.alarm_lines:
                print(f"  false alarm {name}: {a}")
    print(f"\n| report | caught / planted | false alarms on the clean report |{' (--strict)' if strict else ''}")
    print("|---|---|---|")
    for name, r in res.items():
        print(f"| {name} | {r.caught} / {r.planted} | {r.alarms} |")
    tot = [sum(getattr(r, k) for r in res.values()) for k in ("caught", "planted", "alarms")]
    print(f"| total | {tot[0]} / {tot[1]} ({100 * tot[0] / max(tot[1], 1):.0f}%) | {tot[2]} over {len(res)} clean reports |")
    return 0 if tot[0] == tot[1] and tot[2] == 0 else 1


def main() -> int:
    return run_set(sys.argv[1:], names())


if __name__ == "__main__":
    sys.exit(main())
