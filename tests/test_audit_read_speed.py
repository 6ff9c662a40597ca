"""The reader's fast paths give what the slow ones gave (README failure 10: a 5 MB report audits in
seconds, with the same decisions): the look-back for "from" before a score, the per-line memo keyed
by the line object, the window test of a written "A − B" pair, and check 11's seed test."""

from __future__ import annotations

import random

from audit.prose import _FROM, _ends_with_from, _written_pair
from audit.sources import entity_from_text, names_a_seed
from audit.statuses import per_line
from audit.words import TextNames, Vocabulary

_PIECES = ("from", "FROM", "From", " ", "\n", "\t", "x", "_", "é", "1", ".", "ſ", "İ", "\u00a0", "\u2003", "fro", "m", "rom")


def test_ends_with_from_is_the_pattern_searched_over_everything_before():
    rng = random.Random(7)
    checked = found = 0
    for _ in range(20_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 8)))
        for end in range(len(text) + 1):
            want = _FROM.search(text[:end]) is not None
            assert _ends_with_from(text, end) == want, (text, end)
            checked, found = checked + 1, found + want
    assert found > 1_000 and checked - found > 1_000   # both answers exercised


def test_per_line_keys_by_the_line_object_not_its_value():
    calls = []
    squash = per_line(lambda line: calls.append(line) or " ".join(line.split()))
    line = "GSPO  reached " + "0.61 " * 1000
    twin = "".join(list(line))          # equal text, another object (an earlier audit's line)
    assert twin == line and twin is not line
    assert squash(line) == squash(line) == squash(twin) == " ".join(line.split())
    assert len(calls) == 2               # once per object: never a character-by-character compare of equal lines


def _names(text: str) -> TextNames:
    return TextNames(text, Vocabulary({"grpo": "grpo", "sft": "sft", "gspo": "gspo"}, {}, "sft", "heldout_accuracy"))


def test_written_pair_found_only_with_a_minus_between_arms():
    text = "and GRPO − SFT is +0.074 ([−0.017, 0.161]; p = 0.230)"
    at = text.index("+0.074")
    assert _written_pair(text, 0, at, _names(text)) == ("grpo", "sft")
    plain = "and GRPO over SFT is +0.074 ([0.017, 0.161]; p = 0.230)"   # no minus, vs or versus: no pair
    assert _written_pair(plain, 0, plain.index("+0.074"), _names(plain)) is None
    versus = "GSPO versus GRPO is +0.02"
    assert _written_pair(versus, 0, versus.index("+0.02"), _names(versus)) == ("gspo", "grpo")


def test_a_line_naming_no_seed_has_no_run_or_seed_entity():
    arms = ["grpo", "gspo", "dr_grpo"]
    for text in ("GSPO reached 0.61 against 0.60 for GRPO", "Dr. GRPO 0.61", "lr = 1e-6, 5 steps", "GRPO's 0.41"):
        assert not names_a_seed(text)
        ent = entity_from_text(text, arms)[0]
        assert ent is None or ent[0] in ("arm", "contrast")
    for text in ("GSPO seed 3 reached 0.61", "gspo-s37", "RNG seed 20260714"):
        assert names_a_seed(text)
        assert entity_from_text(text, arms)[0][0] in ("run", "seed")
