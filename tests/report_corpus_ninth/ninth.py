"""The ninth set: hand-written reports written without reading the audit's code, over five new studies.

Every set before it (corpus, review, wild, fresh, unseen, blind, cold, eighth) reached its figures
after the audit was tuned against it. This set was written, with its plants, without reading anything
under ``audit/`` (nor the audit's tests, nor the other sets' report texts) and proof-read against each
study's ``analysis.json`` before the audit first ran on it; the first-run figures are recorded in
README.md here. Its layouts: a Hugging Face model card written from ``huggingface_hub``'s ModelCard
template sections (Evaluation / Testing Data, Factors & Metrics / Results / Summary, leftover
"[More Information Needed]") over a base model, an SFT checkpoint and three RL baselines in two
evaluation sessions under BH; a GitHub README with a raw HTML ``<table>`` (``<br>`` inside cells,
``<sup>`` footnote markers, ``<b>`` best cells, badges) over a one-sided plan under Holm; a
Substack-style blog post with numbers in narrative and in words ("five seeds", "three of five") over
a runner-shaped campaign; a NeurIPS paper checklist in LaTeX (``\\answerYes{}``, justifications,
an appendix ``tabular`` with ``\\textpm``) under Bonferroni with an equivalence margin; an internal
weekly update e-mail in plain text with an ASCII-art table in a code block over two evaluation
sessions. README failure 15.

Scaffold and ``python -m tests.report_corpus_ninth.ninth [--strict] [NAME ...]``: :mod:`tests.report_corpus_blind.blind`.
"""

from __future__ import annotations

from tests.report_corpus_blind import blind

SET, (names, build, plants, known, all_plants, strict_plants) = blind.set_of(__file__)
if __name__ == "__main__":
    blind.exit_main(__file__)
