"""The cold set: a seventh set of hand-written reports, written without reading the audit's code.

Every set before it (corpus, review, wild, fresh, unseen, blind) reached its figures after the audit
was tuned against it, so none of them still measures material the audit has never seen. This set was
written, with its plants, without reading anything under ``audit/`` and proof-read against each
study's ``analysis.json`` before the audit first ran on it; the first-run figures are recorded in
README.md here. Its layouts: a Hugging Face card whose ``model-index`` front matter and results table
are both checked (a plant makes them disagree); a Google-Docs / Notion Markdown export (escaped
``\\_``/``\\*``, bold cells, non-breaking and thin spaces); a paper appendix with significance stars,
superscript footnote markers, U+2212 minus, en-dash intervals and powers of ten in several spellings;
a GitHub pull-request comment whose table has arms as columns and evaluation sessions as rows over a
base model, an SFT checkpoint and three RL baselines; a Sphinx results page in reStructuredText over a
runner-shaped campaign. README failure 15.

Scaffold and ``python -m tests.report_corpus_cold.cold [--strict] [NAME ...]``: :mod:`tests.report_corpus_blind.blind`.
"""

from __future__ import annotations

from tests.report_corpus_blind import blind

SET, (names, build, plants, known, all_plants, strict_plants) = blind.set_of(__file__)
if __name__ == "__main__":
    blind.exit_main(__file__)
