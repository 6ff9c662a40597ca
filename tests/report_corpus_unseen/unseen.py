"""The unseen set: hand-written reports in layouts and wordings none of the four other sets has.

The corpus, review, wild and fresh sets all reached their figures after the audit was tuned
against them, so they no longer measure unseen material. This set was written, with its plants,
before the audit was first run on it, and its first-run figures are recorded in README.md here:
a paper appendix with per-seed tables in "mean (std)" with bold best values and a two-line header
with footnote markers; a blog post with bullet lists, "x% → y%" arrows, "62 %" with a space,
"0·631", "6.3e-1", U+2212 minus signs, numbers in words and arm names in other cases; a Hugging
Face card over a base model, an SFT checkpoint and two evaluation sessions whose results are also
in a YAML code block; a reply in a quoted e-mail thread over a runner-shaped campaign; and a
reStructuredText page (unread by the audit when the set was written, so it had to say so; read by
docutils since audit/rst_doc.py). README failure 15.

Each folder is built as in the fresh set (``study.json``: an imported table, ``"generator":
"study12"`` or ``"generator": "campaign"``), with ``plants.json`` (optional ``"xfail"``: the defect
that keeps a plant from being caught) and ``clean_xfail.txt`` / ``strict_xfail.txt``.

``python -m tests.report_corpus_unseen.unseen [--strict] [NAME ...]`` prints, per report, the plants
caught and the findings on the clean report, and lists every miss and false alarm.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.report_corpus import corpus, sets

HERE = Path(__file__).resolve().parent
SET = sets.ReportSet(HERE)  # the shared scaffold of every report set: build, plants, known defects, measuring
Plant = corpus.KnownPlant

names, build, plants, known = SET.names, SET.build, SET.plants, SET.known


def main() -> int:
    return sets.run_set(sys.argv[1:], SET)


if __name__ == "__main__":
    sys.exit(main())
