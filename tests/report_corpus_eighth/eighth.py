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

Scaffold and ``python -m tests.report_corpus_eighth.eighth [--strict] [NAME ...]``: :mod:`tests.report_corpus_blind.blind`.
"""

from __future__ import annotations

from tests.report_corpus_blind import blind

SET, (names, build, plants, known, all_plants, strict_plants) = blind.set_of(__file__)
if __name__ == "__main__":
    blind.exit_main(__file__)
