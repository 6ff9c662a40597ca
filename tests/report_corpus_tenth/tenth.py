"""The tenth set: hand-written reports written without reading the audit's code, over five new studies.

Every set before it reached its figures after the audit was tuned against it, and the cold, eighth and
ninth sets' first runs (68%, 66% and 65% of plants caught; 27 and 13.4 false alarms per clean report)
showed how far that is from unseen material. This set was written, with its plants, without reading
anything under ``audit/`` (nor the audit's tests, nor the other sets' report texts) and proof-read against
each study's ``analysis.json`` before the audit first ran on it; the first-run figures are recorded in
README.md here. Its layouts: a LaTeX Beamer slide deck (``frame``s, ``block``/``alertblock``, ``\\alert``,
``\\only<2>``, a ``tabular`` in a ``columns`` environment) under Bonferroni with an equivalence margin; an R
Markdown report knitted to ``github_document`` (knitr's ``## [1] ...`` console output and R's
``t.test`` print-out in code blocks, ``kable`` tables, inline results already knitted to numbers) over a
base model, an SFT checkpoint and three RL objectives in two evaluation sessions under BH; a
MkDocs-Material documentation page (``!!! success`` admonitions, ``=== "Tab"`` content tabs, ``*[BH]:``
abbreviations, ``{ .annotate }`` lists) over a runner-shaped campaign; the text of a conference poster
(column blocks, a big "headline number", a QR-code line, "Take-home") over a one-sided plan under Holm; a
GitHub issue filed from the repository's issue form (``### Describe the bug``, ``### Expected``,
``### Environment`` with library versions) reporting a reproduction, over a base model, an SFT
checkpoint and two RL objectives under Holm with an equivalence margin. README failure 15.

Scaffold and ``python -m tests.report_corpus_tenth.tenth [--strict] [NAME ...]``: :mod:`tests.report_corpus_blind.blind`.
"""

from __future__ import annotations

from tests.report_corpus_blind import blind

SET, (names, build, plants, known, all_plants, strict_plants) = blind.set_of(__file__)
if __name__ == "__main__":
    blind.exit_main(__file__)
