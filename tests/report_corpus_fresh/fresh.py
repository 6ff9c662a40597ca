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

import json
import sys
from pathlib import Path

from tests.report_corpus import corpus
from tests.report_corpus_wild import wild

HERE = Path(__file__).resolve().parent

Plant = corpus.KnownPlant


def names() -> list[str]:
    """The fresh reports, in order (one folder each, holding ``study.json``)."""
    return sorted(p.parent.name for p in HERE.glob("*/study.json"))


def _campaign(spec: dict, root: Path) -> Path:
    """A runner-shaped campaign (sealed manifests, traces, telemetry) for ``spec``; its report folder
    holds the analysis and no rendered report."""
    from stats.analyze import analyze, write
    from stats.synthetic import make_campaign, small_prereg
    from tests.audit_defects import chdir

    p = small_prereg(json.loads((corpus.REPO / "examples" / "e1.json").read_text()),
                     heldout_n=spec["heldout_n"], steps=spec.get("steps", 12), seeds=spec["seeds"])
    p["id"] = spec["id"]
    p["arms"] = {k: v for k, v in p["arms"].items() if k in spec["arms"]}
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] in p["arms"]]
    p["analysis"]["multiplicity"]["family"] = [f"{a}-grpo" for a in spec["arms"] if a != "grpo"]
    p["analysis"]["resamples"] = spec.get("resamples", 1000)
    root.mkdir(parents=True, exist_ok=True)
    with chdir(root):
        make_campaign(".", p, effects=spec.get("effects"), base_accuracy=spec.get("base_accuracy", 0.5),
                      rng_seed=spec.get("rng_seed", 0))
        write(analyze(f"locks/{p['id']}.lock.json", "runs"), "report/analysis.json", overwrite=True)
    return root / "report"


def build(name: str, root: Path) -> Path:
    """Build the study of fresh report ``name`` under ``root``, with its report in the report folder."""
    spec = json.loads((HERE / name / "study.json").read_text())
    if spec.get("generator") == "campaign":
        return corpus.put_report(_campaign(spec, root), HERE / name)
    return corpus.build(name, root, folder=HERE)


def plants(name: str) -> list[Plant]:
    """The planted errors of fresh report ``name``."""
    return corpus.known_plants(HERE, name)


def known(name: str, what: str) -> str:
    """The documented defect that keeps report ``name`` from auditing clean (``clean`` or ``strict``), or ''."""
    return corpus.known_defect(HERE, name, what)


def main() -> int:
    return wild.run_set(sys.argv[1:], names(), build, plants)


if __name__ == "__main__":
    sys.exit(main())
