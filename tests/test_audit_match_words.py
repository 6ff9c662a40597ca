"""Claim patterns tried only where their opening words are find what ``finditer`` finds (README failure 10).

``audit.words.matches_at`` tries a pattern only at the places its matches can open (the words each of its
alternatives starts with, found with ``str.find``); the claims' pre-tests skip a pattern only where a word
every match needs is missing. Each is checked against the plain scan on random texts built from the words
the patterns need and on every sentence and paragraph of the hand-written corpus sets (slow tier), so a
word left out of a list, or a new alternative opening with another word, shows as a difference here.
Speed itself is measured by ``benchmarks/audit_parse_scale.py``, not here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from budget import examples

from audit import claims, comparisons
from audit.words import folded, matches_at, search_at, sentences

# (pattern, the words each of its matches opens with)
CASES = (
    (claims._UNADJUSTED, claims._UNADJUSTED_WORDS),
    (claims._ADJUSTED, claims._ADJUSTED_WORDS),
    (claims._SIGNIF, claims._SIGNIF_WORDS),
    (comparisons.WITHIN, ("within",)),
    (claims._GROUP, ("both", "all", "neither", "none")),
    (claims._WORD_COUNTS, claims._COUNT_WORDS),
    (claims._WITH_SEEDS, ("with",)),
    (comparisons._NUM_COMPARE, comparisons._NUM_COMPARE_WORDS),
)
TOKENS = ("unadjusted", "Uncorrected", "before", "without", "prior to", "any", "multiplicity", "adjustment",
          "correction", "nominal", "nominally", "raw p", "adjusted", "BH", "BH-adjusted", "Holm", "Bonferroni",
          "family-wise", "not", "statistically", "significant", "significantly", "non-significant", "insignificant",
          "no", "difference", "within", "1.5", "points", "pp", "both", "all", "neither", "none", "of", "the",
          "contrasts", "gains", "four", "seeds", "runs", "per", "each", "for every", "with only", "ten", "higher",
          "lower", "than", "above", "below", "n", "=", "n=500", "N =", "(of", "500)", "out of", "1,319", "problems",
          "held-out", "(", ")", ",", ";", ".", "GRPO", "ſignificant", "İ", "K", "−", "x", "×", "3x", "times", "fold",
          "steps", "rollouts", "trained for", "12", "0.05", "an", "often", "nonetheless", "ball",
          "within 1.5 points", "within about two pp", "four seeds per", "Three runs each", "with only four seeds",
          "with six seeds", "neither of the gains", "12 steps per run")


def _text(rng: random.Random) -> str:
    return rng.choice([" ", "", "  "]).join(rng.choice(TOKENS) for _ in range(rng.randint(0, 18)))


def _same(text: str) -> None:
    low = folded(text)
    for rx, words in CASES:
        want = [(m.span(), m.groups()) for m in rx.finditer(text)]
        assert [(m.span(), m.groups()) for m in matches_at(rx, text, low, words)] == want, (rx.pattern[:40], text)
        first = search_at(rx, text, low, words)
        assert (first.span() if first else None) == (want[0][0] if want else None), text
    assert [m.span() for m in claims._n_fact_matches(text)] == [m.span() for m in claims._N_FACT.finditer(text)], text
    assert claims._adjust_marks.__wrapped__(text) == _plain_marks(text), text
    if not claims.steps_may_match(low):
        assert claims._STEPS.search(text) is None, text
    if not comparisons._ratios(text):
        assert comparisons._RATIO_HINT.search(text) is None, text


def _plain_marks(sent: str) -> tuple:
    """adjusted_at's marks as it found them before (both patterns scanned over the whole sentence)."""
    marks = sorted([(m.start(), m.end(), False) for m in claims._UNADJUSTED.finditer(sent)]
                   + [(m.start(), m.end(), True) for m in claims._ADJUSTED.finditer(sent)])
    return claims.kept_marks(marks)


def test_patterns_tried_at_their_opening_words_find_what_finditer_finds():
    rng = random.Random(11)
    for _ in range(examples(ci=4000, dev=600)):
        _same(_text(rng))


def test_a_word_left_out_of_the_list_is_caught():
    """The check above can fail: with "holm" left out, "after Holm" is no longer found."""
    text = "significant after Holm"
    words = tuple(w for w in claims._ADJUSTED_WORDS if w != "holm")
    assert [m.group(0) for m in claims._ADJUSTED.finditer(text)] == ["Holm"]
    assert list(matches_at(claims._ADJUSTED, text, folded(text), words)) == []


def test_text_that_folds_to_ascii_letters_is_scanned_whole():
    """"ſignificant" matches the case-insensitive pattern; folded() refuses the text, so it is scanned."""
    text = "not ſignificant after Holm"
    assert folded(text) is None
    assert [m.group(0) for m in matches_at(claims._SIGNIF, text, folded(text), claims._SIGNIF_WORDS)] == \
        ["not ſignificant"]


@pytest.mark.slow
def test_every_corpus_sentence_and_paragraph_finds_what_finditer_finds():
    root = Path(__file__).parent
    files = [p for d in root.glob("report_corpus*") for p in d.rglob("*") if p.suffix in (".md", ".tex", ".rst", ".qmd")]
    assert len(files) > 40
    for p in files:
        text = p.read_text(encoding="utf-8")
        for para in text.split("\n\n"):
            _same(para)
            for a, b in sentences(para):
                _same(para[a:b])


READER_TOKENS = ("session", "Week", "slide", "post", "part", "chapter", "appendix", "page", "pages", "CI", "ci",
                 "confidence", "interval", "confidence interval", "95%", "[", ":", "(", "gain", "of", "difference",
                 "the", "GRPO's", "DAPO", "'s", "seed", "Seed 3", "(seed 4)", "on seed 2", "t-based", "t interval",
                 "Student's t", "bootstrap", "bootstrapped", "ı", "ſ", "K", "0.5", "12", ",", "\n", "  ", "shortfall",
                 "edge", "change", "lead", "Δ", "delta")


def _reader_text(rng: random.Random) -> str:
    return rng.choice([" ", "", "  "]).join(rng.choice(READER_TOKENS) for _ in range(rng.randint(0, 14)))


def test_reader_pre_tests_skip_only_where_the_pattern_finds_nothing():
    """The prose reader's pre-tests (audit.prose) say "no match" only where the pattern finds none: a number's
    naming word before it, a difference's "CI [" before an interval end, "seed" after it, the noun of "GSPO's
    gain of", the interval kind's words."""
    from audit import prose
    from audit.words import _INTERVAL_KINDS, _INTERVAL_WORDS

    rng = random.Random(5)
    for _ in range(examples(ci=6000, dev=1500)):
        text = _reader_text(rng)
        for start in range(len(text) + 1):
            if not prose._may_name_before(text, start):
                assert prose._NAMING_BEFORE.search(text, max(0, start - 12), start) is None, (text, start)
            if not prose._ends_naming_ci(text, max(0, start - 60), start):
                assert prose._DIFF_CI.search(text, max(0, start - 60), start) is None, (text, start)
        low = folded(text)
        if low is not None and not any(n in low for n in prose._OWN_NOUNS):
            assert prose._OWN_NAME.match(text) is None, text
        if text.isascii() and "seed" not in text.lower():
            assert prose._SEED_AFTER.match(text) is None, text
        if low is not None and not any(w in low for w in _INTERVAL_WORDS):
            assert _INTERVAL_KINDS.search(text) is None, text


def test_reader_pre_tests_let_the_matches_through():
    """The pre-tests can fail: each pattern's own example passes its pre-test."""
    from audit import prose

    text = "as in session 3"
    assert prose._may_name_before(text, len(text) - 1) and prose._NAMING_BEFORE.search(text, 3, len(text) - 1)
    text = "a gain of (95% CI: [0.1"
    assert prose._ends_naming_ci(text, 0, len(text) - 3) and prose._DIFF_CI.search(text, 0, len(text) - 3)
