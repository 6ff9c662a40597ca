"""The audit's fast paths give what the straightforward readings give (README failure 10).

Every shortcut that makes a 5 MB report audit in seconds is checked here against the plain way of
doing the same thing, on inputs chosen to break it: inline parsing skipped for blocks with no digit
(a skipped block holding a number would hide it), a text token made without markdown-it, names
looked up with prefix pruning and a memo, sentence indexes instead of per-number rescans, numbers
located on their line from the previous one, a memoised ``entity_from_text``, windows with runs of
blanks cut. Speed itself is measured in ``benchmarks/audit_parse_scale.py``, not here.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from budget import examples

from audit.markdown_doc import _parser, walk
from audit.names import longest_names
from audit.numbers import _BLANKS, numbers_in, parse_markdown
from audit.prose import (
    _LEVEL,
    _RIGHT_AFTER,
    _Covered,
    _levels,
    _positions,
    _prose_by_line,
    _Sentence,
    paragraphs,
)
from audit.sources import _entity_from_text, entity_from_text
from audit.words import _SEED_WORD, TextNames, Vocabulary, folded, matches_from, seed_in, seed_mentions
from prereg.declarations import normalise_label

ARMS = {"grpo": "grpo", "drgrpo": "dr_grpo", "gspo": "gspo", "sftbaseline": "sft", "sft": "sft",
        "grpolr100x": "grpo_lr100x", "grpolr1e5warmup": "grpo_lr1e5_warmup"}
METRICS = {"accuracy": "heldout_accuracy", "heldoutaccuracy": "heldout_accuracy", "zvf": "zvf_mean",
           "meanzvf": "zvf_mean", "reward": "reward_last10"}


def _mentions(text: str, shortcuts: bool) -> list[dict]:
    """Each mention's fields as a dict. A shallow copy is a snapshot (every field is a str, number,
    bool, None or tuple) at a tenth of ``dataclasses.asdict``'s cost, which deep-copies each value."""
    return [dataclasses.asdict(m) for m in parse_markdown("r.md", text, "r.md", shortcuts=shortcuts).mentions]


# ---- Markdown: inline parsing only where it can change a number -------------------------------------
TRICKY = [
    # a digit-free paragraph is the caption of the table after it (parsed late, on demand)
    "Results of the **main** run\n\n| Arm | Acc |\n|---|---|\n| GRPO | 0.61 |\n",
    "Intro *words* only.\n\n<br>\n\n| Arm | Acc |\n|---|---|\n| GRPO | 0.61 |\n",
    "<table><tr><th>Arm</th><th>Acc</th></tr><tr><td>GRPO</td><td>0.61</td></tr></table>\n\nno digits\n",
    "Caption *emph*\n\n<table><tr><th>Arm</th><th>Acc</th></tr><tr><td>GRPO</td><td>0.61</td></tr></table>\n",
    # a table with no digit anywhere, then one with digits
    "| A | B |\n|---|---|\n| x | y |\n\n| Arm | Acc |\n|---|---|\n| **GRPO** | 0.61 |\n",
    # a footnote referenced from a digit-free paragraph holds the numbers
    "See the note[^note].\n\n[^note]: GSPO reached 0.512 on 500 items.\n",
    "Inline note^[GSPO reached 0.512] here.\n",
    "Unreferenced[^x] and [^y].\n\n[^y]: value 0.3\n\n[^x]: value 0.4\n",
    # digits that only appear as entities or in other scripts
    "GSPO &#49;.5 and &#x32;.5\n",
    "Full-width ０.５ and Arabic-Indic ٠٫٥ digits\n",
    # headings without digits scope later numbers
    "# GSPO\n\n## Results\n\nAccuracy 0.61\n\n# GRPO\n\nAccuracy 0.55\n",
    # code spans, escapes, links, comments, pins, autolinks
    "`x = 1.5` and \\*2.5\\* and [a 3](http://h/4) <!-- 5 --> 0.6<!-- id: arms.grpo.mean --> <http://x/7>\n",
    "text with < and > and & only\n\nGSPO 0.61 ~ 0.62 ^ 0.63 ! 0.64\n",
    "- item one\n- item 2.5\n  - nested *0.3*\n\n> quoted 0.4\n>\n> no digit\n",
    "Line one  \nline 0.2 two\\\nline three 0.3\n",
    # brackets that are text (no link can form) and brackets that are links, images or footnotes
    "GSPO 0.61 (95% CI [0.58, 0.64]) beats [GRPO] 0.55!\n",
    "GSPO 0.61 (95% CI [0.58, 0.64]) and [0.5]\n\n[0.5]: http://x/6\n",
    "CI [0.58, 0.64](http://x/9) more 1.5 and [a] [b]\n",
    "p < 0.05! and ![img 3](u/4) 4^2 ^[note 5] [^n]\n\n[^n]: 0.7\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_skipping_inline_parsing_loses_no_number_and_changes_no_context(text):
    assert _mentions(text, True) == _mentions(text, False)


def test_random_markdown_reads_the_same_with_and_without_the_shortcuts():
    atoms = ["GSPO", "grpo", " ", " ", "\n", "\n\n", "0.5", "61.3%", "12", "[", "]", "(", ")", "*", "_", "`",
             "```", "<!--", "-->", "<!-- id: arms.grpo.mean -->", "|", "\n|---|---|\n", "# ", "## ", "> ", "- ",
             "1. ", "[^1]", "[^a]", "\n\n[^a]: note ", "^[inline 3]", "&#49;", "&amp;", "\\", "<b>", "</b>",
             "<table><tr><td>1</td></tr></table>", "~", "!", "[x](http://a/1)", "<http://x.org/2>", "±", "n=500",
             "seed 1", "word", "    ", "---\n", ":", "=", "-", "+", "\n| a | b |\n|---|---|\n| c | d |\n",
             "\n| Arm | Acc |\n|---|---|\n| GRPO | 0.61 |\n", "[0.58, 0.64]", "]", "[", "](", "![", "!", "^",
             "\n\n[ref 1]: http://x/1\n\n", "[ref 1]", "[REF 1][]", "[0.5]", "\n\n[0.5]: /u\n\n"]
    rng = random.Random(11)
    for _ in range(examples(ci=1500, dev=150)):   # dev: the TRICKY cases above pin each shortcut's edge
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 50)))
        assert _mentions(text, True) == _mentions(text, False), text


COMMENTED = [
    "GSPO reached 0.612<!-- id: arms.gspo.heldout_accuracy.mean --> and <!-- draft: was 0.5 --> GRPO 0.6.",
    "<!--> 0.5 <!---> 0.6 <!-- a -- b --> 0.7 <!-- c --- d --> 0.8",   # odd comments: which close where
    "0.5 <!-- unclosed 0.6",                      # no comment: the inline parser reads it
    "0.5 <!-- x --> and > 0.6 <!-- y -->",        # a rule character between comments
    "0.5 <!-- x --> <b>0.6</b>",                  # a tag that is no comment
    "a_b 0.5 <!-- x_y --> 0.6 <!-- [z](u) -->",   # markup inside a comment is the comment's
    "# GSPO 0.5 <!-- 1 -->\n\nGRPO 0.6 <!-- 2 -->",   # a heading's text leaves its comments out
    "- item 0.5 <!-- id: arms.grpo.mean -->\n\n> 0.7<!-- 3 --> 0.8",
]


@pytest.mark.parametrize("text", COMMENTED)
def test_paragraphs_whose_only_markup_is_comments_read_as_the_inline_parser_reads_them(text):
    assert _mentions(text, True) == _mentions(text, False)


def test_comment_only_content_skips_the_inline_parser_and_anything_else_does_not():
    md = _parser(True)
    toks = md.parse(COMMENTED[0], {})
    assert "comments" in toks[1].meta and not toks[1].children   # read without markdown-it's inline parser
    for text in COMMENTED[2:5]:
        toks = md.parse(text, {})
        assert "comments" not in toks[1].meta and toks[1].children   # parsed by it


def test_random_commented_paragraphs_read_the_same_with_and_without_the_shortcut():
    atoms = ["GSPO", " ", "0.5", "61.3%", "<!--", "-->", "<!-- id: arms.grpo.mean -->", "<!-- 7 -->", "-", "--",
             ">", "<", "<!-->", "<!--->", "_", "*", "x", "!", "[", "]", "\n", "&amp;", "`"]
    rng = random.Random(5)
    for _ in range(examples(ci=1500, dev=150)):   # dev: COMMENTED above pins each comment shape
        text = "0.1 " + "".join(rng.choice(atoms) for _ in range(rng.randint(1, 30)))
        assert _mentions(text, True) == _mentions(text, False), text


def test_random_tables_read_the_same_with_the_compact_table_rule():
    """The shortcut parser's table rule (one token of rows, not ~3 tokens a cell) gives the same tables,
    cells, lines and ends as markdown-it-py's own: escaped pipes, pipes in code spans, short and long
    rows, alignment rows, tables in quotes and lists, a table ended by another block, footnotes and
    entities in cells, digit-free tables."""
    cells = ["0.61", "GRPO", "`a|b`", "a \\| b", "\\|", "", " ", "**0.5**", "[^1]", "^[n 2]", "&#49;", "x\\",
             "61.3%", "<!-- id: arms.grpo.mean -->", "<!-- 3 -->", "seed 1", "n=500", "[l](http://a/1)", "~", "*"]
    seps = ["---", ":--", "--:", ":-:", "-", " --- "]
    ends = ["", "\n", "\n> quote 1", "\n# Head 2", "\n```\n3\n```", "\n- item 4", "\n    code 5", "\n<div>6</div>",
            "\n[^1]: note 7", "\nplain 8", "\n---", "\n| 9 |"]
    rng = random.Random(21)

    def row(k, parts):
        edge = rng.choice([("| ", " |"), ("", ""), ("|", "|"), ("| ", "")])
        return edge[0] + " | ".join(rng.choice(parts) for _ in range(k)) + edge[1]

    checked = compact = 0
    n = examples(ci=600, dev=100)
    for _ in range(n):
        k = rng.randint(1, 4)
        delim = row(k if rng.random() < 0.9 else k + 1, seps)
        body = [row(max(0, k + rng.choice([0, 0, 0, -1, 1])), cells) for _ in range(rng.randint(0, 5))]
        lines = [row(k, cells), delim] + [ln for ln in body if rng.random() < 0.9] + rng.choice([[], [""], ["> x 1"]])
        prefix = rng.choice(["", "", "> ", "- ", "  ", "1. "])
        text = rng.choice(["", "Caption\n\n", "para 0.3\n"]) + "\n".join(prefix + ln for ln in lines) \
            + rng.choice(ends) + "\n"
        assert _mentions(text, True) == _mentions(text, False), text
        tables = [x for x in walk(text, shortcuts=False).items if hasattr(x, "rows")]
        checked += any(c.text for t in tables for _, _, row in t.rows for c in row)
        compact += any(tok.type == "table_rows" for tok in _parser(True).parse(text))
    assert checked > n / 4 and compact > n * 5 / 12   # the compact rule read the tables, many with text in their body


def test_every_number_of_a_block_with_digits_is_seen_with_the_shortcuts():
    """A paragraph, cell, heading, footnote or list item with a digit is always read: each number
    written is a mention, in order (nothing between them is skipped)."""
    rng = random.Random(3)
    blocks, written = [], []
    for k in range(300):
        nums = [f"{rng.randint(0, 99)}.{rng.randint(0, 999):03d}" for _ in range(rng.randint(1, 4))]
        written += nums
        shape = k % 5
        if shape == 0:
            blocks.append("GSPO reached " + " then ".join(nums) + ".")
        elif shape == 1:
            blocks.append("| Arm | " + " | ".join(f"c{j}" for j in range(len(nums))) + " |\n|---|"
                          + "---|" * len(nums) + "\n| GRPO | " + " | ".join(nums) + " |")
        elif shape == 2:
            blocks.append("## Run " + " ".join(nums))
        elif shape == 3:
            blocks.append(f"Note[^n{k}].\n\n[^n{k}]: " + ", ".join(nums))
        else:
            blocks.append("- " + "\n- ".join(nums))
        blocks.append("A paragraph with *no* digit at all, [a link](http://x) and `code`.")
    ms = parse_markdown("r.md", "\n\n".join(blocks) + "\n", "r.md").mentions
    seen = [m.text for m in ms if re.fullmatch(r"\d+\.\d{3}", m.text)]
    assert sorted(seen) == sorted(written)
    assert len(seen) == len(written)


def test_a_digit_free_paragraph_is_still_the_caption_of_the_table_after_it():
    text = "Held-out **accuracy** by arm\n\n| Arm | Acc |\n|---|---|\n| GRPO | 0.61 |\n"
    fast, plain = walk(text), walk(text, shortcuts=False)
    assert fast.items[-1].caption == plain.items[-1].caption == "Held-out accuracy by arm"


# ---- names: one fold per word, prefix pruning, a memo -----------------------------------------------
def _plain_names(text: str, names: dict[str, str]) -> list[tuple[int, str]]:
    words = [(m.start(), normalise_label(m.group(0))) for m in re.finditer(r"[A-Za-z0-9]+", text)]
    return [(words[i][0], name) for i, _j, name in longest_names([w for _, w in words], names)]


def test_names_found_with_pruning_and_memo_equal_the_plain_fold():
    vocab = Vocabulary(ARMS, METRICS, "grpo", "heldout_accuracy")
    toks = ["GRPO", "Dr.", "grpo", "lr", "100x", "100", "x", "1e", "5", "warmup", "_", "SFT", "baseline", "-",
            "é", "Gspo", "1.5", "mean", "ZVF", "held-out", "accuracy", "Reward", "(", ")", "**"]
    rng = random.Random(5)
    for _ in range(3000):
        text = " ".join(rng.choice(toks) for _ in range(rng.randint(0, 14)))
        assert vocab.arms_in(text) == _plain_names(text, ARMS), text
        assert vocab.metrics_in(text) == _plain_names(text, METRICS), text


def test_the_name_memo_hands_out_copies():
    vocab = Vocabulary(ARMS, METRICS, "grpo", "heldout_accuracy")
    got = vocab.arms_in("GRPO vs GSPO")
    got.append((99, "x"))
    assert vocab.arms_in("GRPO vs GSPO") == [(0, "grpo"), (8, "gspo")]


# ---- prose: sentence indexes instead of rescans -------------------------------------------------------
def test_sentence_indexes_answer_as_the_rescans_did():
    vocab = Vocabulary(ARMS, METRICS, "grpo", "heldout_accuracy")
    words = ["GRPO", "GSPO", "Dr. GRPO", "accuracy", "ZVF", "95% CI", "90% confidence", "0.5", "seed 3", "and", "x"]
    rng = random.Random(7)
    for _ in range(500):
        sent = " ".join(rng.choice(words) for _ in range(rng.randint(1, 30)))
        s0 = rng.randint(0, 50)
        st = _Sentence(sent, s0, vocab)
        hits, metrics = vocab.arms_in(sent), vocab.metrics_in(sent)
        for m, *_ in numbers_in(sent):
            start, end = s0 + m.start(), s0 + m.end()
            lead = [a for p, a in hits if s0 + p < start]
            assert st.arms_before(start) == list(dict.fromkeys(lead))
            before = [x for p, x in metrics if s0 + p < start]
            after = [(p, x) for p, x in metrics if s0 + p >= end]
            # a metric named right after the number ("92.6% well-formed answers") is the number's
            right = after[0][1] if after and _RIGHT_AFTER.fullmatch(sent[end - s0:after[0][0]]) else None
            assert st.metric_at(start, end) == (right or (before[-1] if before else after[0][1] if after else None))
            lv = re.findall(r"(\d{2})\s*%\s*(?:CI|confidence|credible)", sent[:start - s0], re.I)
            assert st.level_at(start) == (lv[-1] if lv else "95")
        assert st.seed() == seed_in(sent)


def test_names_in_a_slice_of_the_paragraph_index_equal_the_slice_looked_up():
    """TextNames answers for any slice what arms_in/metrics_in of the slice give, also where the slice
    cuts a word ("xgrpo" from its second letter is "grpo"), a name spans the cut, or the text holds
    characters that fold to ASCII letters."""
    vocab = Vocabulary(ARMS, METRICS, "grpo", "heldout_accuracy")
    toks = ["GRPO", "Dr.", "grpo", "lr", "100x", "100", "x", "1e", "5", "warmup", "_", "SFT", "baseline", "-", "é",
            "Gspo", "1.5", "mean", "ZVF", "held-out", "accuracy", "İ", "xgrpo", "grpox", "sftbaseline", "(", "**"]
    rng = random.Random(11)
    for _ in range(3000):
        text = rng.choice([" ", "", "-"]).join(rng.choice(toks) for _ in range(rng.randint(0, 14)))
        tn = TextNames(text, vocab)
        for _ in range(6):
            a = rng.randint(0, len(text) + 2)
            b = rng.randint(a - 2, len(text) + 3)
            part = text[a:b] if b > a else ""
            assert tn.arms(a, b) == vocab.arms_in(part), (text, a, b)
            assert tn.metrics(a, b) == vocab.metrics_in(part), (text, a, b)


def test_patterns_tried_only_where_their_word_is_find_what_finditer_finds():
    """matches_from (a pattern tried where its first word is) and _levels (the "NN% CI" level found from
    its "%") give finditer's matches; folded refuses texts whose characters fold to ASCII letters."""
    from audit.claims import _SEED_LIST, _SEED_RANGE

    every = "".join(map(chr, range(128, 0x110000)))  # every non-ASCII code point, scanned in one search
    folds = [hex(128 + m.start()) for m in re.finditer("[a-z]", every, re.I)]
    assert folds == ["0x130", "0x131", "0x17f", "0x212a"]   # the list words._FOLDS_TO_ASCII holds
    assert folded("ſeeds 1, 2") is None and folded("Seeds 1, 2 − 3") == "seeds 1, 2 − 3"
    toks = ["seed", "Seeds", "SEED", "s", "s1", "(7)", "3", ",", "and", "1", "to", "4", "95", "%", "CI", "90 %",
            "confidence", "x", "seeds:", "ſeed", "..."]
    rng = random.Random(13)
    for _ in range(3000):
        text = rng.choice([" ", "", ", "]).join(rng.choice(toks) for _ in range(rng.randint(0, 16)))
        for rx, word in ((_SEED_LIST, "seed"), (_SEED_RANGE, "seeds"), (_SEED_WORD, "s")):
            want = [(m.span(), m.groups()) for m in rx.finditer(text)]
            assert [(m.span(), m.groups()) for m in matches_from(rx, text, folded(text), word)] == want, text
        assert seed_mentions(text, folded(text)) == seed_mentions(text)
        assert _levels(text) == ([m.end() for m in _LEVEL.finditer(text)], [m.group(1) for m in _LEVEL.finditer(text)])


def test_sentence_ends_found_from_their_marks_equal_the_look_behind():
    """words._SENTENCE_END matches the mark a sentence ends with (a fast search); the ends are those
    of the look-behind form it replaced, tried at every character."""
    from audit.words import _SENTENCE_END

    behind = re.compile(r"(?<=[.!?;])(?:\*\*|\*|_)?\s+(?=[A-Z*_`(\[]|[a-z][\w-]*@\d)")
    toks = ["A", "a", "b@1", "x-y@2", ".", "!", "?", ";", " ", "  ", "**", "*", "_", "`", "(", "[", "\n", "Dr.", "1",
            "é", "É", "\u2003"]
    rng = random.Random(17)
    for _ in range(5000):
        text = "".join(rng.choice(toks) for _ in range(rng.randint(0, 20)))
        assert [m.span(1) for m in _SENTENCE_END.finditer(text)] == [m.span() for m in behind.finditer(text)], text


def test_fact_spans_by_bisect_equal_the_scan():
    rng = random.Random(9)
    for _ in range(300):
        spans = [(a, a + rng.randint(0, 30)) for a in (rng.randint(0, 200) for _ in range(rng.randint(0, 12)))]
        cov = _Covered(spans)
        for pos in range(-2, 240):
            assert (pos in cov) == any(a <= pos < b for a, b in spans)


def test_numbers_are_located_on_their_line_in_order():
    """"1" of "seeds 0, 1" is that seed, not the "1" of the footnote label before it; 30,000 numbers on
    a line are each found once, at their own place."""
    text = "[^1]: Mean over seeds 0, 1 and 2.\n"
    f = parse_markdown("r.md", "x[^1]\n\n" + text, "r.md")
    para = [p for p in paragraphs(f.lines) if "seeds" in p[1]][0]
    located = {m.text: (s, e) for s, e, m in _positions(f, para, _prose_by_line(f))}
    assert para[1][located["1"][0]:located["1"][0] + 6] == "1 and "
    line = " ".join(f"{k % 997}.{k % 10}" for k in range(3000))
    f = parse_markdown("r.md", line + "\n", "r.md")
    para = paragraphs(f.lines)[0]
    got = _positions(f, para, _prose_by_line(f))
    assert [s for s, _e, _m in got] == [m.start() for m, *_ in numbers_in(para[1])]


# ---- tracer helpers ---------------------------------------------------------------------------------
def test_memoised_entity_from_text_equals_a_fresh_reading_and_hands_out_copies():
    arms = ["grpo", "gspo", "dr_grpo", "grpo_lr100x"]
    for text in ["GSPO seed 3 accuracy", "Dr. GRPO − GRPO (pp)", "gspoS37HeldoutAcc", "", "mean ± sd",
                 "grpo_lr100x seed 2 accuracy"]:
        fresh = _entity_from_text.__wrapped__(text, tuple(arms))
        ent, rest = entity_from_text(text, arms)
        assert (ent, tuple(rest)) == fresh
        rest.append("x")
        assert entity_from_text(text, arms)[1] == list(fresh[1])
    labels = {"Dr. GRPO": "dr_grpo", "grpo": "grpo"}
    assert entity_from_text("Dr. GRPO", labels)[0] == ("arm", "dr_grpo")


def test_cutting_runs_of_blanks_in_a_window_changes_no_reading():
    rng = random.Random(13)
    words = ["held", "out", "p", "value", "seed", "GSPO", "grpo", "Accuracy", "\n", "  ", "     ", "\t", "lr", "s"]
    for _ in range(2000):
        w = "".join(rng.choice(words) + " " * rng.randint(0, 6) for _ in range(rng.randint(1, 12)))
        assert entity_from_text(w, ["grpo", "gspo"]) == entity_from_text(_BLANKS.sub("  ", w), ["grpo", "gspo"])


# ---- repeated cells: read once per distinct text, decided once per distinct context -------------------
def _random_table_report(seed: int) -> str:
    """Tables whose cells repeat across rows, columns, headings and units: pins, labels, intervals,
    percent rows, counts, "± sd" columns, seeds as rows, a contrast row, comparators."""
    rng = random.Random(seed)
    arms = ["GRPO", "GSPO", "Dr. GRPO", "gspo seed 2", "GSPO − GRPO", "seed 1", "Accuracy (%)", "Groups (0-4)"]
    heads = ["Arm", "Seed", "Accuracy", "Accuracy (%)", "ZVF", "mean ± sd", "95% CI", "p", "n=500", "Groups correct"]
    vals = ["0.61", "0.610", "61.0", "61.0%", "0.0781", "0.1042", "3", "2.75", "[0.58, 0.64]", "0.61 ± 0.02", "< 0.05",
            "0.1042<!-- id: arms.gspo.heldout_accuracy.mean -->", "1", "500", "60.4–61.7%", "−0.03", "1.3k", ""]
    out = []
    for _ in range(4):
        out.append(rng.choice(["# GSPO", "## Results (seed 2)", "# Report", "### GRPO seed 1"]))
        cols = rng.sample(heads, rng.randint(2, 5))
        out.append("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
        some_arms, some_vals = rng.sample(arms, 3), rng.sample(vals, 6)
        for _ in range(rng.randint(3, 40)):
            out.append("| " + " | ".join([rng.choice(some_arms)] + [rng.choice(some_vals) for _ in cols[1:]]) + " |")
        out.append("")
    return "\n".join(out) + "\n"


def test_a_repeated_cell_text_reads_as_a_fresh_one(monkeypatch):
    from audit import numbers

    for seed in range(examples(ci=40, dev=12)):
        text = _random_table_report(seed)
        cached = _mentions(text, True)
        monkeypatch.setattr(numbers, "_SHAPES_MAX", 0)
        fresh = _mentions(text, True)
        monkeypatch.setattr(numbers, "_SHAPES_MAX", 100_000)
        assert cached == fresh, text


def _traced_rows(text: str) -> list[tuple]:
    from audit.sources import SourceIndex
    from audit.trace import _trace_files

    idx = SourceIndex(["grpo", "gspo", "dr_grpo"])
    for arm, v in (("grpo", 0.0781), ("gspo", 0.1042), ("dr_grpo", 0.61)):
        idx.add(f"arms.{arm}.heldout_accuracy.mean", v, "fraction")
        idx.add(f"arms.{arm}.heldout_accuracy.sd", 0.02, "fraction")
        idx.add(f"arms.{arm}.heldout_accuracy.mean.ci95.low", 0.58, "fraction")
        idx.add(f"arms.{arm}.heldout_accuracy.mean.ci95.high", 0.64, "fraction")
        idx.add(f"runs.{arm}.s2.heldout_accuracy", v, "fraction")
    idx.add("contrasts.gspo-grpo.heldout_accuracy.diff_mean", 0.0261, "difference")
    idx.add("contrasts.gspo-grpo.heldout_accuracy.p", 0.03, "probability")
    idx.add("lock.dataset.heldout_n", 500, "count")
    vocab = Vocabulary({"grpo": "grpo", "gspo": "gspo", "drgrpo": "dr_grpo"}, METRICS, "grpo", "heldout_accuracy")
    files = [parse_markdown("r.md", text, "r.md")]
    return [(t.mention.line, t.mention.text, t.mention.column_percent, t.status, [s.id for s in t.sources],
             [s.value for s in t.sources], t.expected, t.message, t.decisive) for t in _trace_files(idx, files, vocab)]


def test_a_repeated_table_cell_is_decided_as_a_fresh_one(monkeypatch):
    from audit import trace

    decided = set()
    for seed in range(examples(ci=40, dev=12)):
        text = _random_table_report(seed)
        memo = _traced_rows(text)
        monkeypatch.setattr(trace, "_CELL_MEMO_MAX", 0)
        fresh = _traced_rows(text)
        monkeypatch.setattr(trace, "_CELL_MEMO_MAX", 100_000)
        assert memo == fresh, text
        decided |= {row[3] for row in memo}
    assert {"traced", "error", "label", "untraced"} <= decided   # every outcome was copied at least once


def test_names_found_from_their_possible_first_words_equal_the_full_scan():
    from audit.names import name_prefixes

    names = {**ARMS, "grpolr1e5": "grpo_lr1e5", "a": "a_arm"}
    pre = name_prefixes(names)
    words = ["grpo", "lr", "1e5", "warmup", "dr", "a", "sft", "baseline", "x", "100", "gspo", "lr100x", "1", "e"]
    rng = random.Random(9)
    for _ in range(3000):
        ws = [rng.choice(words) for _ in range(rng.randint(0, 12))]
        assert longest_names(ws, names, pre) == longest_names(ws, names), ws


def test_label_patterns_skipped_for_want_of_their_words_would_have_found_nothing(monkeypatch):
    from audit import numbers

    words = ["n=500", "N = 1,319", "seed 3", "Seeds: 1, 2", "pass@16", "MAJ@8", "last 10 steps", "(0-4)", "rank 16",
             "LoRA Rank: 8", "95% CI", "80 % power", "CI95", "ci 95", "Top-5", "k=3", "at Step 200", "EPOCH 2",
             "Table 2", "fig. 3", "Sec. 4.1", "§5", "Eq. 7", "Appendix 1", "version 2.1", "0.5", "accuracy", "é", "(",
             "=", "%", "@", "K", "SEED", "Iteration 7", "checkpoint 9", "Hypothesis 2"]
    rng = random.Random(13)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    fast = [numbers.label_spans(t) for t in texts]
    monkeypatch.setattr(numbers, "_LABEL_CUES", (("",),) * len(numbers._LABELS))   # every pattern tried
    assert fast == [numbers.label_spans(t) for t in texts]
    assert sum(bool(f) for f in fast) > 2000


def test_the_first_cell_holding_a_number_in_a_wide_row_is_the_one_a_scan_finds():
    from audit.numbers import Cells
    from audit.trace import _first_cell_with

    rng = random.Random(17)
    parts = ["0.5", "10.5", "0.55", "5", "pp", " ", "±", "−7.8 pp", "GRPO", "", "1"]
    for _ in range(300):
        cells = Cells("".join(rng.choice(parts) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(1, 80)))
        for text in ("0.5", "5", "10.5", "55", "7.8", "1", "0.5 ", "x"):
            assert _first_cell_with(cells, text) == next((c for c in cells if text in c), ""), (cells, text)
        assert hash(cells) == hash(tuple(cells)) and cells == tuple(cells)


# ---- prose and claims: a memo and a keyword prefilter give what the patterns give ---------------------
PHRASES = ["GSPO", "is", "higher than", "HIGHER  THAN", "above", "Below", "beats", "outperformed", "underperforms",
           "surpassed", "exceeds", "improves on", "was ahead of", "worse than", "trails", "lags behind", "falls behind",
           "are behind", "better\nthan", "over", "under", "0.61", "(", ")", ",", "the", "lower", "than", "thanks", "é",
           "ſ", "paired t p =", "BH-adjusted", "Δ =", "a gain of", "±", "minimum detectable effect", "vs.", "−", "p-values",
           "alpha =", "t(5) =", "d_z =", "TOST p", "q =", "SD of", "by about", "GRPO − SFT:", "power was", "x"]


def test_comparison_prefilter_skips_only_sentences_the_comparison_pattern_cannot_match():
    from audit.comparisons import _COMPARE, _may_compare

    rng = random.Random(23)
    texts = [" ".join(rng.choice(PHRASES) for _ in range(rng.randint(0, 9))) for _ in range(4000)]
    hits = [t for t in texts if _COMPARE.search(t)]
    assert all(_may_compare(t) for t in hits)
    assert len(hits) > 1000 and sum(not _may_compare(t) for t in texts) > 500   # both sides exercised


def test_memoised_role_before_reads_each_tail_as_the_patterns_do():
    from audit.words import _ROLE_BEFORE, role_before

    def plain(text):
        return next((role for role, rx in _ROLE_BEFORE if rx.search(text[-100:])), None)

    rng = random.Random(29)
    texts = ["".join(rng.choice(PHRASES) + rng.choice(" ,;") for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    got = [role_before(t) for t in texts + texts]   # the second pass is served from the memo
    want = [plain(t) for t in texts]   # the patterns are pure: the second pass's answers are the first's
    assert got == want + want
    assert len(set(got)) > 8


def test_a_cell_reading_made_once_per_context_equals_a_fresh_one(monkeypatch):
    from audit import prose, trace

    monkeypatch.setattr(trace, "_CELL_MEMO_MAX", 0)   # every cell read, none copied from a decided one
    pairs, memo = [], {}

    def both(m, ent, vocab, readings=None):
        got = prose.table_reading(m, ent, vocab, memo)
        got_again = prose.table_reading(m, ent, vocab, memo)
        pairs.append((got, prose.table_reading(m, ent, vocab)))
        if got is not None:
            got.arms.append("x")   # a copy: changing it changes no later reading
            assert got_again is not got and "x" not in got_again.arms
        return prose.table_reading(m, ent, vocab, memo)

    monkeypatch.setattr(trace, "table_reading", both)
    for seed in range(examples(ci=40, dev=12)):
        _traced_rows(_random_table_report(seed))
    got = [a for a, _ in pairs]
    assert [(a if a is None else {**a.__dict__, "arms": a.arms[:-1]}) for a in got] == \
        [(b if b is None else b.__dict__) for _, b in pairs]
    assert len(memo) < len(pairs) / 3 and any(r is not None and r.role == "sd" for r in got) \
        and any(r is not None and r.percent for r in got)


def test_exploratory_words_read_part_by_part_equal_the_joined_context():
    from audit.checks.exploratory import _labelled
    from audit.trace import mentions_exploratory

    pool = ["post", "hoc results", "", None, "not", "preregistered", "Post-hoc", "x not", "registered y", "EXPLORATORY",
            "unregistered", "GRPO 0.61", "not  registered", "post ", "Hoc", "seed 2", "| gspo | 0.61 |"]
    rng = random.Random(21)
    seen, said = set(), {}
    for _ in range(5000):
        parts = tuple(rng.choice(pool) for _ in range(7))
        joined = mentions_exploratory(" ".join(x or "" for x in parts))
        assert _labelled(parts) == joined, parts
        assert _labelled(parts, said) == joined, parts   # the check's per-audit memo of each part
        seen.add(joined)
    assert seen == {True, False}
    assert _labelled(("GRPO post", "hoc", None, None, None, None, None))   # only across two parts
    assert not _labelled(("GRPO post", "", "hoc", None, None, None, None))   # "post  hoc": no label
