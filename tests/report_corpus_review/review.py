"""The independent review set: new hand-written reports over the corpus's own studies.

Each folder here is one report a researcher could have typed, in a layout ``tests/report_corpus/``
does not have (bullet-list model card, transposed table with a CI row, LaTeX with
``\\multicolumn``/``\\num{}``, README with an HTML ``<table>``, ...), written by a reviewer who did
not write the audit. ``study.txt`` names the ``tests/report_corpus/`` study whose fixture it reuses;
``plants.json`` has the corpus's plant format plus an optional ``"xfail"``: the exact defect, for a
plant the audit does not catch yet (README failure 15). ``python -m tests.report_corpus_review.review``
prints the catch rate and the false alarms
(the shared scaffold of every report set, :mod:`tests.report_corpus.sets`; this set keeps its own summary lines).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.report_corpus import corpus, sets

HERE = Path(__file__).resolve().parent
SET = sets.ReportSet(HERE)
Plant = corpus.KnownPlant

names, study, build, plants, known = SET.names, SET.study, SET.build, SET.plants, SET.known


def main() -> int:
    strict = "--strict" in sys.argv
    res = SET.measure(sys.argv[1:])
    tot = sets.totals(res)
    for name, r in res.items():
        print(f"{name:24s} caught {r.caught:3d}/{r.planted:<3d} false alarms on the clean report: {r.alarms}")
    print(f"{'total':24s} caught {tot[0]:3d}/{tot[1]:<3d} false alarms: {tot[2]} over {len(res)} clean reports"
          f"{' (--strict)' if strict else ''}")
    return 0 if tot[0] == tot[1] and tot[2] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
