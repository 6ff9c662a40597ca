"""The unseen set: hand-written reports in layouts and wordings none of the four other sets has.

The corpus, review, wild and fresh sets all reached their figures after the audit was tuned
against them, so they no longer measure unseen material. This set was written, with its plants,
before the audit was first run on it, and its first-run figures are recorded in README.md here:
a paper appendix with per-seed tables in "mean (std)" with bold best values and a two-line header
with footnote markers; a blog post with bullet lists, "x% → y%" arrows, "62 %" with a space,
"0·631", "6.3e-1", U+2212 minus signs, numbers in words and arm names in other cases; a Hugging
Face card over a base model, an SFT checkpoint and two evaluation sessions whose results are also
in a YAML code block; a reply in a quoted e-mail thread over a runner-shaped campaign; and a
reStructuredText file (a format the audit does not read: it must say so, not pass it). README
failure 15.

Each folder is built as in the fresh set (``study.json``: an imported table, ``"generator":
"study12"`` or ``"generator": "campaign"``), with ``plants.json`` (optional ``"xfail"``: the defect
that keeps a plant from being caught) and ``clean_xfail.txt`` / ``strict_xfail.txt``.

``python -m tests.report_corpus_unseen.unseen [--strict] [NAME ...]`` prints, per report, the plants
caught and the findings on the clean report, and lists every miss and false alarm.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.report_corpus import corpus
from tests.report_corpus_fresh import fresh
from tests.report_corpus_wild import wild

HERE = Path(__file__).resolve().parent

Plant = corpus.KnownPlant
# Report files of formats the audit does not read (reStructuredText, org-mode) travel with the study
# too, so that the audit sees what the author wrote.
OTHER_SUFFIXES = (".rst", ".org")


def names() -> list[str]:
    """The unseen reports, in order (one folder each, holding ``study.json``)."""
    return sorted(p.parent.name for p in HERE.glob("*/study.json"))


def build(name: str, root: Path) -> Path:
    """Build the study of unseen report ``name`` under ``root``, with its report in the report folder
    (the fresh set's builders: an imported table, a study12 study or a runner-shaped campaign)."""
    import json
    import shutil

    spec = json.loads((HERE / name / "study.json").read_text())
    if spec.get("generator") == "campaign":
        report = corpus.put_report(fresh._campaign(spec, root), HERE / name)
    else:
        report = corpus.build(name, root, folder=HERE)
    for f in (HERE / name).iterdir():
        if f.suffix in OTHER_SUFFIXES:
            shutil.copyfile(f, report / f.name)
    return report


def plants(name: str) -> list[Plant]:
    """The planted errors of unseen report ``name``."""
    return corpus.known_plants(HERE, name)


def known(name: str, what: str) -> str:
    """The documented defect that keeps report ``name`` from auditing clean (``clean`` or ``strict``), or ''."""
    return corpus.known_defect(HERE, name, what)


def main() -> int:
    return wild.run_set(sys.argv[1:], names(), build, plants)


if __name__ == "__main__":
    sys.exit(main())
