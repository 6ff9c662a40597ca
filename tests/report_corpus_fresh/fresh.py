"""The fresh set: hand-written reports over NEW studies, in layouts none of the three other sets has.

The review and wild sets reached zero false alarms only after the audit was fixed against them,
so their figures no longer measure unseen material. This set was typed by someone who had not
tuned the audit to it, each report over its own study (none of the ``tests/report_corpus/``
studies is reused): an arXiv-style Markdown results section with a "Table 2:" caption and
footnote markers; a Weights & Biases / Notion report export (emoji headings, ``> [!NOTE]``
callouts, ``<details>`` toggles); a Quarto document (``report.qmd``, inline `` `r ...` `` chunks,
a knitr/pandoc table); a GitHub discussion comment comparing two arms with a task list over a
runner-shaped campaign; a Hugging Face card with its results in a ``<details>`` block and a
``model-index`` with several tasks; a LaTeX paper with ``table*``, ``\\multicolumn``, ``\\bm{}``,
``\\underline{}`` and ``\\pm`` in ``\\scriptsize``. README failure 15.

Each folder holds ``study.json`` (the corpus's study format, built by ``corpus.build``, or
``{"generator": "campaign", ...}``: a runner-shaped campaign with sealed manifests, traces and
telemetry from ``stats.synthetic.make_campaign``), the clean report, and ``plants.json`` in the
format of the wild set (optional ``"xfail"``: the defect that keeps the plant from being caught).
``clean_xfail.txt`` / ``strict_xfail.txt`` name a defect that keeps the clean report from auditing
clean.

``python -m tests.report_corpus_fresh.fresh [--strict] [NAME ...]`` prints, per report, the plants
caught and the findings on the clean report, and lists every miss and false alarm.

First run, before any fix (see README.md in this folder for the figures and the command).
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
