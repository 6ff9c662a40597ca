"""The independent review set: new hand-written reports over the corpus's own studies.

Each folder here is one report a researcher could have typed, in a layout ``tests/report_corpus/``
does not have (bullet-list model card, transposed table with a CI row, LaTeX with
``\\multicolumn``/``\\num{}``, README with an HTML ``<table>``, ...), written by a reviewer who did
not write the audit. ``study.txt`` names the ``tests/report_corpus/`` study whose fixture it reuses;
``plants.json`` has the corpus's plant format plus an optional ``"xfail"``: the exact defect, for a
plant the audit does not catch yet (README failure 15). ``python -m tests.report_corpus_review.review``
prints the catch rate and the false alarms.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.report_corpus import corpus

HERE = Path(__file__).resolve().parent


Plant = corpus.KnownPlant


def names() -> list[str]:
    """The review reports, in order (one folder each)."""
    return corpus.reports_over_studies(HERE)


def study(name: str) -> str:
    """The corpus study whose fixture report ``name`` reuses."""
    return corpus.study_of(HERE, name)


def build(name: str, root: Path) -> Path:
    """Build the corpus study of ``name`` under ``root`` with this folder's report in place of the corpus's."""
    report = corpus.build(study(name), root)
    return corpus.put_report(report, HERE / name)


def plants(name: str) -> list[Plant]:
    """The planted errors of review report ``name``."""
    return corpus.known_plants(HERE, name)


def measure(tmp: Path, strict: bool = False) -> dict:
    """{report: (caught, planted, clean findings)} over the review set."""
    from audit import check

    out = {}
    for name in names():
        clean = build(name, tmp / name / "clean")
        alarms = check(clean, strict=strict).findings
        got = 0
        for i, p in enumerate(plants(name)):
            rep = tmp / name / f"p{i}" / "report"
            shutil.copytree(clean.parent, rep.parent, dirs_exist_ok=True)
            line = corpus.apply(rep, p)
            hit = bool(corpus.caught(check(rep, strict=strict).findings, p, line))
            got += hit
            if not hit:
                print(f"  missed {name}: {p.kind}: {p.find!r} -> {p.replace!r}")
        out[name] = (got, len(plants(name)), len(alarms))
        for f in alarms:
            print(f"  false alarm {name}: {f.check} {f.location} {f.message} | {f.expected} | {f.found}")
    return out


def main() -> int:
    import tempfile

    strict = "--strict" in sys.argv
    with tempfile.TemporaryDirectory() as d:
        res = measure(Path(d), strict=strict)
    tot = [sum(v[i] for v in res.values()) for i in range(3)]
    for name, (got, n, alarms) in res.items():
        print(f"{name:24s} caught {got:3d}/{n:<3d} false alarms on the clean report: {alarms}")
    print(f"{'total':24s} caught {tot[0]:3d}/{tot[1]:<3d} false alarms: {tot[2]} over {len(res)} clean reports"
          f"{' (--strict)' if strict else ''}")
    return 0 if tot[0] == tot[1] and tot[2] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
