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
the findings on the clean report, and lists every miss and false alarm. The set's code is the
shared scaffold of every report set (:mod:`tests.report_corpus.sets`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.report_corpus import corpus, sets

HERE = Path(__file__).resolve().parent
SET = sets.ReportSet(HERE)
CAMPAIGN = sets.CAMPAIGN
Plant = corpus.KnownPlant
Result = sets.Result

names, study, build, plants, known = SET.names, SET.study, SET.build, SET.plants, SET.known
caught = sets.caught
_campaign = sets.runner_campaign


def main() -> int:
    return sets.run_set(sys.argv[1:], SET)


if __name__ == "__main__":
    sys.exit(main())
