"""The eighth set: hand-written reports written without reading the audit's code, over five new studies.

The seven sets before it (corpus, review, wild, fresh, unseen, blind, cold) all reached their figures
after the audit was tuned against them. This set was written, with its plants, without reading anything
under ``audit/`` (nor the audit's tests, nor the other sets' report texts) and proof-read against each
study's ``analysis.json`` before the audit first ran on it; the first-run figures are recorded in
README.md here. Its layouts: a Weights & Biases report exported to Markdown (panels described in text, a
panel's data pasted as a table, a runs table with ``grpo-s21``-style names) over a one-sided plan; an
arXiv-style LaTeX results section (``\\sisetup``, booktabs, a caption above the table, a
``\\multicolumn`` "Seed" header, ``\\mathbf`` best cell, ``\\num``, ``S`` columns) under Bonferroni; an
OpenReview rebuttal (reviewer text quoted with ``>``, answers with numbers) over a base model and an SFT
checkpoint under Holm; a Jupyter notebook exported by nbconvert with pandas ``to_markdown()`` tables (an
index column, ``floatfmt=".6f"``) over a runner-shaped campaign; a Slack thread recap with emoji
shortcodes, "pp", "~" and "sd" over a 7-seed study with an equivalence verdict. README failure 15.

The set is the blind set's scaffold (:class:`tests.report_corpus_blind.blind.BlindSet`: ``study.json``
with the ``items`` and ``campaign`` generators, ``plants.json`` with ``"xfail"`` and ``"strict"``,
``clean_xfail.txt`` / ``strict_xfail.txt``) over this folder.

``python -m tests.report_corpus_eighth.eighth [--strict] [NAME ...]`` prints, per report, every plant
missed and every finding on the clean report, then the table of figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.report_corpus_blind import blind

HERE = Path(__file__).resolve().parent

SET = blind.BlindSet(HERE)
names, build, plants, known, all_plants, strict_plants = SET.exports()

if __name__ == "__main__":
    sys.exit(blind.main(HERE))
