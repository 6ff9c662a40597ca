"""Reading the numbers of prose paragraphs: each number's arm(s), metric and statistic from its sentence.

A paragraph is read left to right. A number's statistic comes from the words since the
previous value ("BH-adjusted 0.108", "a gain of +0.018", "± 0.004"); an interval's ends belong
to the value before them (an arm mean or a difference); the arm is the one named just before
the number, right after it ("0.632 for GRPO"), or the paragraph's subject; a contrast is the
pair of arms the sentence names, in the order written (README failure 15). Parameters
("95% CI", "80% power", "8 seeds") are labels, never values.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from audit.code_data import code_readings
from audit.markers import footnote_cells, leading_footnote, leading_mark, legend_lines, marked_rows
from audit.names import longest_names
from audit.numbers import Mention, ParsedFile, is_bibliography
from audit.statuses import per_line
from audit.words import (
    CLAIM_BEFORE,
    HALF_WIDTH,
    Reading,
    TextNames,
    Vocabulary,
    diff_after,
    every_after,
    folded,
    interval_kinds,
    is_param,
    is_points,
    lora_role,
    matches_from,
    named_test,
    names_lora,
    role_before,
    seed_in,
    seed_mentions,
    sentences,
)

_CONTRAST_ROLES = {"diff", "p", "p_adjusted", "mde", "power", "tost_p", "t_stat", "dz"}
# Percentage points are the unit of a difference of two percentages: "+1.78 pp", "3.8 points".
_PP = re.compile(r"\s*(?:pp\b|percentage[\s-]+points?\b|-?points?\b|pts\b)", re.I)
# "[−0.27, +0.69] pp": the unit after an interval's closing bracket is both ends' unit
# "the gap is below 2 points (1.00)": the number in parentheses right after a number of points is in points too
_PP_THEN_PAREN = re.compile(r"\d\s*(?:pp|percentage[\s-]+points?|points?|pts?)\s*\(\s*$", re.I)
_END_PP = re.compile(r"[^\]\)\n]{0,24}[\]\)]\s*(?:pp\b|percentage[\s-]+points?\b|points?\b|pts?\b)", re.I)
# "95% CI 2.5 to 23.5 pp", "−0.18 to +0.05 pp": an interval written with "to" (unit after either end).
_TO_RANGE = re.compile(r"\s*(%|pp\b|percentage\s+points?\b|points?\b)?\s*to\s+[−+\-]?\d[\d,]*(?:\.\d+)?\s*"
                       r"(%|pp\b|percentage\s+points?\b|points?\b)?", re.I)
_TO_UNIT = re.compile(r"\s*to\s+[−+\-]?\d[\d,]*(?:\.\d+)?\s*(?:%|pp\b|percentage\s+points?\b|points?\b|pts\b)", re.I)
_TO_BEFORE = re.compile(r"^\s*(?:%|pp\b|percentage\s+points?\b|points?\b)?\s*to\s*$", re.I)
# "0.44 (seed 23)", "0.6733 on seed 5": the seed named right after the value
_SEED_AFTER = re.compile(r"\s*(?:%|pp\b)?\s*(?:\(\s*seed\s*[#=:]?\s*(\d+)\s*\)|(?:on|at|for|with)\s+seed\s*[#=:]?\s*(\d+)\b(?![.,]\d))",
                         re.I)
_OF_MAX = re.compile(r"^\s*(?:out\s+)?of\s*$", re.I)
_CI_WORDS = re.compile(r"\bCI\b|\binterval\b|\bconfidence\b|\bcredible\b", re.I)
_AFTER_ARM = re.compile(r"\s*(?:\)|,)?\s*(?:(?:for|of|with|by|from)\s*(?:the\s+)?)?\(?\s*\**`?")
_LEVEL = re.compile(r"(\d{2})\s*%\s*(?:CI|confidence|credible|interval)", re.I)
# "95% bootstrap CI", "90% percentile interval": a level with the interval's method between, a parameter
# "Interval: 95% percentile bootstrap over seeds": a level followed by the interval's method alone
_LEVEL_WORDS = re.compile(r"\d{2}\s*%\s*(?:(?:[A-Za-z-]+\s+){1,2}(?:CI|confidence|credible|intervals?|bootstrap)\b|"
                          r"(?:percentile|bootstrap|BCa)\b)", re.I)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_PLAIN_LINE = re.compile(r"^\s*(?:#|\||```|~~~|<!--|---\s*$|\\)")


def _blank_comments(line: str) -> str:
    """HTML comments (pins, notes) blanked to spaces, offsets kept.

    Scanned with str.find, not ``<!--.*?-->``: that regex is quadratic on a line of unclosed
    ``<!--`` (README failure 10: 98 s for 200 KB)."""
    if "<!--" not in line:
        return line
    out, p = [], 0
    while True:
        c = line.find("<!--", p)
        if c < 0:
            out.append(line[p:])
            return "".join(out)
        e = line.find("-->", c + 4)
        if e < 0:   # unclosed: CommonMark reads it as text
            out.append(line[p:])
            return "".join(out)
        out.append(line[p:c] + " " * (e + 3 - c))
        p = e + 3


_TEX_ENVS = (r"tabular\*?|tabularx|longtable|array|comment|verbatim|Verbatim|lstlisting|minted|table\*?|figure\*?|"
             r"equation\*?|align\*?|thebibliography")   # not prose: a bibliography names references (README failure 10)
_TEX_BLOCK = re.compile(rf"\\begin\{{({_TEX_ENVS})\}}")
_TEX_BLOCK_END = re.compile(rf"\\end\{{({_TEX_ENVS})\}}")
_TEX_NOT_PROSE = re.compile(r"^\s*\\(?:(?:re|provide)?newcommand|def\\|title|chapter|(?:sub)*section|paragraph|"
                            r"caption|label|documentclass|usepackage|begin|end|maketitle)\b")


# A run-in heading with its paragraph's first words on the same line
_TEX_RUN_IN = re.compile(r"^\s*\\(?:sub)*paragraph\*?\{[^{}]*\}\s*\S")


def tex_text(line: str) -> str:
    """One LaTeX line as the text it typesets (comment dropped), by audit.latex_doc's grammar."""
    from audit.latex_doc import _split_comment, clean

    return clean(_split_comment(line)[0])


def tex_paragraphs(lines: list[str]) -> list[tuple[list[int], str, list[int]]]:
    """Prose paragraphs of a LaTeX file: blank lines split them; tables, figures, macro definitions,
    headings and code are not prose, but a table's or figure's ``\\caption{...}`` is a paragraph of its
    own ("intervals over seeds (\\num{2000} resamples)" is read like the same words in the text)."""
    out, cur, depth = [], [], 0
    cap, open_braces = [], 0     # the lines of a caption being read, and its braces not yet closed
    for i, line in enumerate(lines, 1):
        code = line.split("%", 1)[0] if "\\%" not in line else line
        if _TEX_BLOCK.search(code):
            depth += 1
        if depth and (cap or "\\caption" in code):
            cap.append(i)
            open_braces += code.count("{") - code.count("}") - code.count("\\{") + code.count("\\}")
            if open_braces <= 0:
                out.append(cap)
                cap, open_braces = [], 0
        run_in = not depth and _TEX_RUN_IN.match(line) is not None
        if run_in and cur:   # "\paragraph{Results.} GSPO reaches ...": a new paragraph, its text is prose
            out.append(cur)
            cur = []
        if depth or not line.strip() or (_TEX_NOT_PROSE.match(line) and not run_in) or not tex_text(line).strip():
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(i)
        if _TEX_BLOCK_END.search(code):
            depth = max(0, depth - 1)
    if cur:
        out.append(cur)
    if cap:
        out.append(cap)
    out.sort(key=lambda nums: nums[0])
    return [_joined(nums, [tex_text(lines[n - 1]) for n in nums]) for nums in out]


def _joined(nums: list[int], texts: list[str]):
    offs, parts, size = [], [], 0
    for t in texts:
        offs.append(size)
        parts.append(" ".join(t.split()) + " ")
        size += len(parts[-1])
    return nums, "".join(parts), offs


# "<sup>‡</sup> equivalent to GRPO ...", a footnote's body "<sup>b</sup> TOST ...", "² The upper end ...": its own paragraph
_MARK_LINE = re.compile(r"\s*(?:<sup>\s*(?:\\?\*|[†‡§]|(?:[a-z]|\d{1,2})\s*</sup>)|\\\*|[†‡§]|[¹²³⁴⁵⁶⁷⁸⁹⁰ᵃᵇᶜᵈᵉᶠ]{1,2}\s)", re.I)
_QUOTE_BLANK = re.compile(r"\s*(?:>\s*)+")   # ">" or "> >" alone: a blank line of a quoted e-mail ends its paragraph
_QUOTE_LEAD = re.compile(r"\s*(?:>\s*)+")


def _unquote(line: str) -> str:
    """A quoted line ("> > That's a 24%", "> relative gain!") with its quote markers blanked, offsets
    kept: the words of a sentence that runs over quoted lines meet as written ("24% relative")."""
    m = _QUOTE_LEAD.match(line) if line[:1] in "> \t" else None
    return " " * m.end() + line[m.end():] if m else line


_SIGNATURE = re.compile(r"^--\s*$")


def _signature_lines(lines: list[str]) -> frozenset[int]:
    """The lines of e-mail signatures in a quoted thread: after a "--" line, to the end of its quote level
    ("> > --" then "> > Ana Ruiz · Room 2.14 · +44 20 7946 0123"): no prose, their numbers name nothing."""
    out, depth, sig = set(), 0, None
    for i, line in enumerate(lines, 1):
        q = _QUOTE_LEAD.match(line) if line[:1] in "> \t" and ">" in line[:8] else None
        d = q.group().count(">") if q else 0
        if d != depth:
            depth, sig = d, None
        if sig is not None:
            out.add(i)
        elif d and _SIGNATURE.match(line[q.end():] if q else line):
            sig = d
    return frozenset(out)


def paragraphs(lines: list[str]) -> list[tuple[list[int], str, list[int]]]:
    """(line numbers, joined text, offset of each line in the text) of each prose paragraph; a quoted
    e-mail's signature (:func:`_signature_lines`) is none."""
    out, cur = [], []
    fenced = False
    sig = _signature_lines(lines) if any(">" in ln[:8] for ln in lines) else frozenset()
    for i, line in enumerate(lines, 1):
        if i in sig:
            if cur:
                out.append(cur)
            cur = []
            continue
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
            if cur:
                out.append(cur)
            cur = []
            continue
        if fenced or not line.strip() or _PLAIN_LINE.match(line) or _QUOTE_BLANK.fullmatch(line):
            if cur:
                out.append(cur)
            cur = []
            continue
        if (_LIST_ITEM.match(line) or _MARK_LINE.match(line)) and cur:   # each list item, each legend line its own paragraph
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    return [_joined(nums, [_blank_comments(_unquote(lines[n - 1])).strip() for n in nums]) for nums in out]


def _prose_by_line(file: ParsedFile) -> dict[int, list[Mention]]:
    """The file's prose mentions grouped by line (read_file builds it once per file, not once per paragraph)."""
    by: dict[int, list[Mention]] = {}
    for m in file.mentions:
        if m.kind == "prose":
            by.setdefault(m.line, []).append(m)
    return by


def _whole(raw: str, pos: int, n: int) -> bool:
    """Is ``raw[pos:pos + n]`` a whole number, not the tail or head of a longer one, nor a digit of a word
    ("8" of "GSM8K": the number reader never makes one after a letter, audit.numbers._boundary_ok)?"""
    before = raw[pos - 1] if pos else " "
    after = raw[pos + n] if pos + n < len(raw) else " "
    return not (before.isdigit() or (before in ".," and raw[pos].isdigit() and pos > 1 and raw[pos - 2].isdigit())
                or after.isdigit() or (before.isalpha() and raw[pos].isdigit()))


def _positions(file: ParsedFile, para, by: dict[int, list[Mention]]) -> list[tuple[int, int, Mention]]:
    """(start, end, mention) of the paragraph's mentions, found in its text by occurrence order.

    Linear: each line is cleaned once and each number searched on from where the previous one was
    found (README failure 10: one line may hold 30,000 numbers; searching each from the line's
    start made that quadratic, and could find "1" of "[^1]" for the "1" of "seeds 0, 1")."""
    nums, text, offs = para
    out = []
    for k, n in enumerate(nums):
        ms = by.get(n)
        if not ms:
            continue
        line = file.lines[n - 1]
        raw = " ".join((tex_text(line) if file.path.endswith(".tex") else _blank_comments(_unquote(line))).split())
        base = offs[k]
        last: dict[str, int] = {}
        cursor = 0
        for m in ms:
            # the line's spaces are folded: so are the number's ("1.5 \\cdot 10^{-3}" is "1.5  ·  10^ -3")
            t = " ".join(m.text.split()) if " " in m.text else m.text
            pos = raw.find(t, max(cursor, last.get(t, -1) + 1))
            while pos >= 0 and not _whole(raw, pos, len(t)):   # "0" is not the 0 of "66.0%"
                pos = raw.find(t, pos + 1)
            if pos < 0:
                last[t] = len(raw)   # not on this line (a comment, an escape): no later copy either
                continue
            last[t] = pos
            cursor = pos + len(t)
            out.append((base + pos, base + cursor, m))
    out.sort(key=lambda t: t[0])
    return out


# Between two values of one statistic: "0.0042 for GSPO--GRPO and 0.0054", "2.6 points for GSPO and 2.7",
# "d_z = 3.18 for GSPO, and about −0.83", "19.1 points for GSPO (20.6 for DAPO)", "… for Dr. GRPO and 0.0071".
_AND = re.compile(r"\s*(?:points?\s+|pp\s+|pts?\s+)?(?:(?:for|in)\s+[^,;()]{1,40}?|\([^()]{1,30}\))?\s*(?:,\s*and|,|and|\()\s*"
                  r"(?:about\s+|roughly\s+|around\s+|~\s*)?", re.I)
# "0.058 for GSPO (seed 3 is high) and 0.024 for Dr. GRPO": an aside after the first arm, then the next value
_AND_ASIDE = re.compile(r"\s*(?:points?\s+|pp\s+|pts?\s+)?(?:for|in)\s+[^,;()]{1,40}?\s*\([^()]{1,40}\)\s*(?:,\s*and|,|and)\s*", re.I)
_VS = re.compile(r"\s*,?\s*(?:vs\.?|versus|against|compared\s+with)\s*", re.I)   # "(0.043 vs 0.067 for GRPO)": the same statistic of another arm
_FOR = re.compile(r"\s*(?:pp\b|points?\b)?\s*(?:for|in|of)\s+(?:the\s+)?", re.I)
_FROM = re.compile(r"\bfrom\s*$", re.I)
_TO = re.compile(r"\s*(?:%|pp\b)?\s*to\s*", re.I)
_FROM_TO = re.compile(r"\s*(?:%|pp\b)?\s*to\s+[−+\-]?\d", re.I)


def _pair_after(text: str, pos: int, names: TextNames):
    """The contrast named right after a statistic ("0.0054 for AERO--GRPO", "for GSPO vs GRPO"), or None.
    ``names``: the names of ``text`` (its paragraph), found once."""
    m = _FOR.match(text, pos)
    if not m:
        return None
    rest = text[m.end():m.end() + 50]
    hits = names.arms(m.end(), m.end() + 50)
    if len(hits) < 2 or hits[0][0] != 0 or hits[0][1] == hits[1][1]:
        return None
    gap = rest[:hits[1][0]]
    return (hits[0][1], hits[1][1]) if re.search(r"(?:[-–—−/]{1,2}|\bvs\.?|\bversus|\bminus)\s*$", gap) else None


_PAREN_ARM = re.compile(r"\s*\(\s*[A-Za-z]")
# The unit written once after a range of one statistic: "0.85 (Dr. GRPO) and 1.31 (DAPO) points".
_RANGE_POINTS = re.compile(r"\s*(?:\([^()]{1,30}\)\s*)?(?:(?:and|to|–|-)\s*[−+\-]?[\d.]+\s*(?:\([^()]{1,30}\)\s*)?)?"
                           r"(?:points?|pp|pts?)\b", re.I)


def _arm_pair_after(text: str, pos: int, names: TextNames, base: str | None = None) -> tuple[str, str] | None:
    """A contrast statistic followed by one arm ("d_z = 3.18 for GSPO", "2.6 points for GSPO", "20.6 for
    DAPO", "between 0.85 (Dr. GRPO) and 1.31 (DAPO) points"): that arm against the baseline (``base``, a
    heading's, else the study's), or None when the arm named is the baseline or none is. ``names``: the
    names of ``text`` (its paragraph)."""
    m = _FOR.match(text, pos)
    arm = _arm_after(text, m.end(), names) if m and m.end() > pos else None   # "2.6 points for GSPO"
    if arm is None and _PAREN_ARM.match(text, pos):
        arm = _arm_after(text, pos, names)   # "between 0.85 (Dr. GRPO) and 1.31 (DAPO) points"
    if arm is None and _UNIT_PAREN_ARM.match(text, pos):
        arm = _arm_after_unit(text, pos, names)   # "are 0.64 points (DAPO) and 1.75 points (GSPO)"
    baseline = base or names.vocab.baseline
    return (arm, baseline) if arm and baseline and arm != baseline else None




_UNIT_PAREN_ARM = re.compile(r"\s*(?:pp|pts?|points?|percentage\s+points?)\s*\(\s*[\w.\- ]{1,30}?\s*\)", re.I)


def _arm_after(text: str, pos: int, names: TextNames) -> str | None:
    """The arm named right after the number that ends at ``pos`` ("0.632 for GRPO")."""
    m = _AFTER_ARM.match(text, pos)
    a = m.end() if m else pos
    hits = names.arms(a, a + 30)
    if not hits or hits[0][0] != 0:
        return None
    follow = _FOLLOW.match(text, a, a + 30)   # "(GRPO: 0.448)" labels the next number
    return None if follow and len(names.arms(a, follow.end())) == 1 else hits[0][1]


_PAREN_ARM = re.compile(r"\s*\(\s*[\w.\- ]{1,30}?\s*\)")   # "0.287 (GRPO)": a name alone in parentheses
# A difference named just before an interval, its value typed elsewhere (a macro, dropped from the text): "a gain
# of \gspoDelta{} (95% CI [1.56, 1.95] pp"
_DIFF_CI = re.compile(r"\b(?:gain|difference|improvement|drop|change|gap|deficit|loss|advantage|Δ|delta)\s+(?:of\s+)?\(?\s*"
                      r"(?:\d+(?:\.\d+)?\s*%\s*)?(?:bootstrap\s+|percentile\s+)?(?:CI|confidence\s+interval)\s*:?\s*\[?\s*$", re.I)
_PAREN_TO = re.compile(r"\s*\(\s*[\w.\- ]{1,30}?\s*\)\s*to\s*", re.I)   # "from 0.287 (GRPO) to ": to the other arm's
_UNIT_AFTER = re.compile(r"\s*(?:pp|pts?|points?|percentage\s+points?)\b", re.I)


def _arm_after_unit(text: str, pos: int, names: TextNames) -> str | None:
    """The arm named right after a number and its unit ("0.96 pts for GRPO", "5.8 points for GRPO")."""
    u = _UNIT_AFTER.match(text, pos)
    return _arm_after(text, u.end(), names) if u else None


_FOLLOW = re.compile(r"[A-Za-z0-9_.\- ]*?[`*]*\s*[:=]")
_OVER = re.compile(r"\b(?:over|vs\.?|versus|against|than|compared\s+(?:to|with)|relative\s+to|equivalent\s+to|"
                   r"(?:different|indistinguishable)\s+from)\s+(?:the\s+)?\**`?$",
                   re.I)


def _versus_subject(sent: str, s_arms: list[str], subject: str | None, vocab: Vocabulary):
    """(subject, arm) for a sentence naming one arm only as what its subject is compared with:
    "pass@16 barely moves over SFT (+2.6 pp)" after a sentence about GRPO is GRPO minus SFT."""
    if len(set(s_arms)) != 1 or subject is None or subject == s_arms[0]:
        return None
    pos = vocab.arms_in(sent)[0][0]
    return (subject, s_arms[0]) if _OVER.search(sent[max(0, pos - 30):pos]) else None


_LEAD_OVER = re.compile(r"(?:^|[^\w\s])?\s*(?:compared\s+(?:to|with)|relative\s+to|against|versus|over|"
                        r"(?:differences?|changes?)\s+(?:from|over|against))\s+(?:the\s+)?\**`?$",
                        re.I)


def _compared_first(sent: str, vocab: Vocabulary):
    """(second, first) for a sentence that opens with what its arms are compared with: "Compared with
    GRPO (63.2%), GSPO gains 1.8 points" is GSPO minus GRPO, not the written order."""
    hits = vocab.arms_in(sent)
    uniq = list(dict.fromkeys(a for _, a in hits))
    if len(uniq) < 2:
        return None
    if hits[0][0] > 40 or not _LEAD_OVER.search(sent[:hits[0][0]]):
        # "All three RL objectives improve on the base model ..., DAPO by the most (+0.219)": the first arm
        # named is what the others improve on
        return (uniq[1], uniq[0]) if _IMPROVE_ON.search(sent, max(0, hits[0][0] - 30), hits[0][0]) else None
    return (uniq[1], uniq[0])


_IMPROVE_ON = re.compile(r"\b(?:improve[sd]?|gain(?:s|ed)?)\s+(?:on|over|upon)\s+(?:the\s+)?$|"
                         r"\b(?:beats?|outperform(?:s|ed)?|surpass(?:es|ed)?)\s+(?:the\s+)?$", re.I)


def _pair(sentence_arms: list[str], para_pair, vocab: Vocabulary):
    uniq = list(dict.fromkeys(sentence_arms))
    if len(uniq) >= 2:
        return (uniq[0], uniq[1])
    if len(uniq) == 1:
        a = uniq[0]
        if a != vocab.baseline:
            return (a, vocab.baseline)
        if para_pair and vocab.baseline in para_pair:
            return para_pair
    return para_pair


def file_paragraphs(file: ParsedFile) -> list[tuple[list[int], str, list[int]]]:
    """The prose paragraphs of one report file (:func:`paragraphs`, :func:`tex_paragraphs`), found once
    per file: the prose reader and the claims reader (audit.claims) share them, and so do the worker
    processes that read parts of a large report (audit.report_pool, README failure 10)."""
    memo = file.__dict__.get("_paragraphs")
    if memo is None or memo[0] is not file.lines:
        paras = tex_paragraphs(file.lines) if file.path.endswith(".tex") else paragraphs(file.lines)
        memo = file.__dict__["_paragraphs"] = (file.lines, paras)
    return memo[1]


def reading_breaks(file: ParsedFile) -> list[int]:
    """The lines where the reading of ``file`` may be cut into parts read apart (audit.report_pool): a line
    no paragraph spans (it starts one, or lies between them: a table, a heading, a blank) where the
    next paragraph starts with no enclosing list item (:func:`read_file` starts a paragraph that is
    no list item, or a list item at the margin, with none). Reading the parts in turn gives what
    reading the whole file gives."""
    spans = sorted((p[0][0], p[0][-1]) for p in file_paragraphs(file))
    tex = file.path.endswith(".tex")

    def resets(first: int) -> bool:
        m = None if tex else _LIST_ITEM.match(file.lines[first - 1])
        return m is None or not m.group(0)[:1].isspace()

    out, reach, k = [], 0, 0
    for line in range(1, len(file.lines) + 1):
        while k < len(spans) and spans[k][0] < line:
            reach = max(reach, spans[k][1])
            k += 1
        if line > reach and (k == len(spans) or resets(spans[k][0])):
            out.append(line)
    return out


def read_file(file: ParsedFile, vocab: Vocabulary, lines: range | None = None,
              cuts: dict[int, SentenceCut] | None = None) -> dict[int, Reading]:
    """Readings of the prose numbers of one Markdown file, keyed by ``id(mention)``; with ``lines``
    (from one :func:`reading_breaks` line to the next), only of the paragraphs that start there; ``cuts``:
    {first line of a paragraph: the sentences of it to read} (:class:`SentenceCut`)."""
    out: dict[int, Reading] = {}
    if is_bibliography(file.path):
        return out    # a bibliography: every number is a citation's (audit.statuses), no prose to read
    tex = file.path.endswith(".tex")
    paras = file_paragraphs(file)
    if lines is not None:
        paras = [p for p in paras if p[0][0] in lines]
    by = _prose_by_line(file)
    legend = legend_lines(file)   # "* p < 0.05" under a table says what a mark means (audit.markers)
    rows = marked_rows(file) if not tex else {}
    items: list[tuple[int, str | None]] = []    # (indent, arm) of the list items enclosing the paragraph
    lead = None   # the last paragraph before this list was a lead-in stating percent ("Accuracy (%) per seed:") or counts
    for para in paras:
        first = "" if tex else file.lines[para[0][0] - 1]
        indent = len(first) - len(first.lstrip()) if _LIST_ITEM.match(first) else None
        while items and (indent is None or items[-1][0] >= indent):
            items.pop()
        parent = next((a for _, a in reversed(items) if a), None) or _marked_arm(first, para[0][0], rows, vocab)
        foot = _footnote_row(file, first, para[0][0], vocab) if not tex and indent is None else None
        parent = parent or (foot[0] if foot else None)   # (the parent of a footnote on a contrast's row: none)
        located = _positions(file, para, by)
        if all(m.in_code for _, _, m in located):   # no number a reading is used for (audit.trace reads code by value)
            subject = _first_arm(para[1], vocab) or parent
        else:
            cut = cuts.get(para[0][0]) if cuts else None
            subject = _read_paragraph(para, located, vocab, out, parent, legend, lead=lead if indent is not None else None,
                                      cut=cut, pair=foot[1] if foot else None)
            if cut is not None:   # the paragraph's numbers found nowhere in its text: the first part's
                every = frozenset(id(m) for n in para[0] for m in by.get(n, ()))
                found = frozenset(id(m) for _, _, m in located)
                cut.all_ids, cut.ids = every, cut.ids | (every - found if not cut.k0 else frozenset())
        if indent is None:
            lead = None if tex or not para[1].rstrip().endswith(":") else "pct" if _LEAD_PCT.search(para[1]) \
                else "count" if _LEAD_COUNT.search(para[1]) and _OUT_OF_ITEMS.search(para[1]) else None
        if indent is not None:
            items.append((indent, subject))
    if not tex and any(">" in ln[:8] for ln in file.lines):
        for n in _signature_lines(file.lines):   # "Ana Ruiz · Room 2.14 · +44 20 7946 0123": labels
            for m in by.get(n, ()) if lines is None or n in lines else ():
                out[id(m)] = Reading(param=True)
    out.update(code_readings(file, vocab, lines))   # "sft: 0.910" under "pass16:" in a ```yaml block
    # a legend line no paragraph holds ("\\* p < 0.05"): its thresholds are labels all the same
    for n in (legend if lines is None else [n for n in legend if n in lines]):
        for m in by.get(n, ()):
            if m.comparator and id(m) not in out:
                out[id(m)] = Reading(param=True)
    return out


def _first_arm(text: str, vocab: Vocabulary) -> str | None:
    """The arm :func:`_read_paragraph` says a paragraph is about (the first arm its sentences name), for a
    paragraph with no number to read: prose, or numbers all in code spans (README failure 10: a README's
    command lines were read word by word for numbers nobody takes a reading of)."""
    names = TextNames(text, vocab)
    for s_start, s_end in sentences(text):
        hits = names.arms(s_start, s_end)
        if hits:
            return hits[0][1]
    return None


def _marked_arm(first: str, line: int, rows: dict, vocab: Vocabulary) -> str | None:
    """The one arm whose table row above carries the mark a line starts with: "<sup>‡</sup> equivalent to
    GRPO within ±1 point (TOST p = 0.016)" under a row "Dr. GRPO<sup>‡</sup>" is about Dr. GRPO."""
    mark = leading_mark(first) if rows and first else None
    if mark is None:
        return None
    arms = {a for ln, label in rows.get(mark, ()) if ln < line for _, a in vocab.arms_in(label)}
    return next(iter(arms)) if len(arms) == 1 else None


def _footnote_row(file: ParsedFile, first: str, line: int, vocab: Vocabulary) -> tuple | None:
    """(arm, pair) a footnote's body is about: the row of the one table value above it that carries
    its reference ("<sup>b</sup> TOST ... gives p = 0.049" under "| Dr. GRPO | ... | +0.04<sup>b</sup> |"
    is Dr. GRPO against the baseline; "² The upper end is 0.01875" under "| DAPO − GRPO | ... |
    [0.0047, 0.0188]² |" is that contrast's). None when the line is no footnote, or its reference
    sits on rows of different arms ("<sup>a</sup>" on every arm's Δ: a note on the method)."""
    key = leading_footnote(first) if first and first.lstrip()[:1] in "<¹²³⁴⁵⁶⁷⁸⁹⁰ᵃᵇᶜᵈᵉᶠ" else None
    if key is None:
        return None
    rows = {label for ln, label, _ in footnote_cells(file).get(key, ()) if ln < line}
    if len(rows) != 1:
        return None
    arms = list(dict.fromkeys(a for _, a in vocab.arms_in(rows.pop())))
    if len(arms) == 2:   # a contrast's row: its numbers are the contrast's, no arm's own
        return None, (arms[0], arms[1])
    if len(arms) == 1 and vocab.baseline and arms[0] != vocab.baseline:
        return arms[0], (arms[0], vocab.baseline)
    return (arms[0], None) if len(arms) == 1 else None


_NAMES_SEEDS = re.compile(r"\bs\d")   # "(s10, s13)": seeds, not "tied at 55%"
# What a held-out n needs (claims._N_FACT): "n =", "(of 1,319)", or a noun ("162 held-out puzzles")
_N_FACT_WORDS = ("problem", "item", "question", "puzzle", "example", "board")


def _fact_spans(text: str, names: TextNames) -> list[tuple[int, int]]:
    """Spans of seed lists, held-out n and run/arm/seed counts: facts audit.claims checks against the
    lock, so their numbers are labels here, not values to trace. A pattern runs only where its key
    word is in the text (``names.may_hold``: each scan of a long paragraph costs ~50 ns a character)."""
    from audit.claims import _COUNTS, _RESAMPLES, _SEED_LIST, _SEED_RANGE, _STEPS, n_facts, steps_may_match
    from audit.seed_claims import TIES, UP_DOWN

    spans = [(m.start(1), m.end(1)) for m in matches_from(_SEED_LIST, text, names.low, "seed")]
    spans += [(m.start(1), m.end(2)) for m in matches_from(_SEED_RANGE, text, names.low, "seeds")]
    if "=" in text or "(" in text or any(names.may_hold(w) for w in _N_FACT_WORDS):
        spans += [(m.start(), m.end()) for m in n_facts(text)]
    if any(names.may_hold(w) for w in ("adapters", "runs", "checkpoints", "arms", "seeds")):
        spans += [(m.start(), m.end()) for m in _COUNTS.finditer(text)]
    if names.may_hold("resamples") or names.may_hold("bootstrap"):
        spans += [(m.start(), m.end()) for m in _RESAMPLES.finditer(text)]
    if (names.may_hold("steps") or names.may_hold("rollouts")) and steps_may_match(names.low):
        spans += [(m.start(), m.end()) for m in _STEPS.finditer(text)]
    if names.may_hold("up") and names.may_hold("down"):   # "2 up, 3 down": counts of seeds (audit.seed_claims)
        spans += [(m.start(), m.end()) for m in UP_DOWN.finditer(text)]
    if names.may_hold("tie"):   # "2 exact ties (s10, s13)": a count and a list of seeds
        spans += [(m.start(), m.end()) for m in TIES.finditer(text) if _NAMES_SEEDS.search(m.group("seeds"))
                  or "seed" in m.group(0).lower()]
    if _may_date(text, names.low) and _DATE_CUE.search(text):   # "30 Nov 2026", "On Tue, 1 Dec 2026 at 09:14": a date or a time names a moment
        spans += [(m.start(), m.end()) for m in _DATE.finditer(text)]
    return spans


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_MONTH_DAY = r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)(?:[a-z]*\.?)"
_DATE = re.compile(rf"(?<![\d.])\d{{1,2}}\s+{_MONTH},?\s+\d{{4}}\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|"
                   r"(?<![\d.])\d{1,2}:\d{2}(?::\d{2})?(?![\d.])|(?<![\d.])\d{1,2}\s*(?:am|pm)\b|"
                   # "last edited Nov 28", "on 3 Dec": a day of a capitalised month, no year ("May" is a word too)
                   rf"(?-i:\b{_MONTH_DAY})\s+(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\b(?![.,]\d|\s*%)|"
                   rf"(?<![\d.,])(?:[12]\d|3[01]|0?[1-9])\s+(?-i:{_MONTH_DAY})\b", re.I)
_DATE_CUE = re.compile(r"\d:\d|\d\s*[ap]m\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)", re.I)


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _may_date(text: str, low: str | None) -> bool:
    """False only where ``_DATE_CUE`` surely finds nothing: no ":", "am", "pm" nor month (``low``:
    ``folded(text)``, None when that pre-test cannot be trusted)."""
    return low is None or ":" in text or "am" in low or "pm" in low or any(mo in low for mo in _MONTHS)


def _is_param(after: str) -> bool:
    """"95% CI", "8 seeds", and "±1 pp equivalence margin" (the unit between number and word)."""
    pp = _PP.match(after)
    return is_param(after) or (pp is not None and is_param(after[pp.end():]))


def _after_diff(w, start: int) -> bool:
    """Whether the number at ``start`` opens a parenthesis right after a difference ("+0.044 (−0.013 to")."""
    return w.prev is not None and w.prev.role == "diff" and w.text[w.prev_end:start].strip() == "("


def _to_range(text: str, s_start: int, start: int, end: int, m: Mention, low_end, low: str | None = None,
              after_diff: bool = False):
    """("low" | "high", percent) for the ends of an interval written "A to B" after CI words
    ("95% CI 2.5 to 23.5 pp", "−0.18 to +0.05 pp") or in parentheses right after a difference
    (``after_diff``: "DAPO +0.044 (−0.013 to 0.100, p = 0.28)"), else (None, False). ``low_end`` is
    (end, percent) of the low end just read, or None."""
    if m.role is not None:
        return None, False
    if low_end is not None and _TO_BEFORE.match(text[low_end[0]:start]):
        return "high", low_end[1] or m.percent
    if low is not None and low.find("to", end, end + 60) < 0:
        return None, False   # no "to" in reach: no "A to B" (``low``: the folded paragraph, or None)
    t = _TO_RANGE.match(text[end:end + 60])
    if t and (after_diff or _CI_WORDS.search(text[max(s_start, start - 40):start])):
        return "low", bool(t.group(1) or t.group(2)) or m.percent
    return None, False


class _Covered:
    """``pos in covered``: whether a position falls in any of the spans, by bisect (a paragraph can hold
    thousands of seed lists and n= facts; scanning them all for each number was quadratic)."""

    def __init__(self, spans: list[tuple[int, int]]):
        spans = sorted(spans)
        self.starts = [a for a, _ in spans]
        self.reach, far = [], -1
        for _, b in spans:
            far = max(far, b)
            self.reach.append(far)

    def __contains__(self, pos: int) -> bool:
        k = bisect.bisect_right(self.starts, pos)
        return k > 0 and self.reach[k - 1] > pos


# "95% CI", "90 % confidence": the level's "%" and word, found by its literal "%" (a fast search); the
# two digits before it are the level (:func:`_levels`).
_PCT_CI = re.compile(r"%\s*(?:CI|confidence|credible|interval)", re.I)   # "the 90% interval" too


def _levels(sent: str) -> tuple[list[int], list[str]]:
    """(end, level) of each ``_LEVEL`` match of ``sent``, as ``_LEVEL.finditer`` finds them, found from
    each "%" followed by a CI word (the digits and spaces before it decide the rest): ``_LEVEL`` opens
    with ``\\d`` and was tried at every character of every sentence."""
    ends, levels = [], []
    for m in _PCT_CI.finditer(sent):
        j = m.start()
        while j and sent[j - 1].isspace():    # \s is str.isspace, \d str.isdecimal (every code point checked)
            j -= 1
        if j >= 2 and sent[j - 2].isdecimal() and sent[j - 1].isdecimal():
            ends.append(m.end())
            levels.append(sent[j - 2:j])
    return ends, levels


class _Sentence:
    """The names and CI levels of one sentence, found once; queried by position for each of its numbers
    (README failure 10: a sentence may hold 30,000 numbers, so no per-number rescans of it)."""

    def __init__(self, sent: str, start: int, vocab: Vocabulary, names: TextNames | None = None):
        self.text, self.start = sent, start
        if names is None:
            arm_hits, self.metrics = vocab.arms_in(sent), vocab.metrics_in(sent)
        else:   # the paragraph's names, found once; audit.claims looks the sentence up again
            arm_hits = names.arms(start, start + len(sent))
            self.metrics = names.metrics(start, start + len(sent))
            vocab.remember("arms", sent, arm_hits)
            vocab.remember("metrics", sent, self.metrics)
        self.arms = [a for _, a in arm_hits]
        self.arm_pos = [p for p, _ in arm_hits]
        self.uniq = list(dict.fromkeys(self.arms))
        seen: set[str] = set()
        self.n_uniq = [0]          # distinct arms among the first k named
        for arm in self.arms:
            seen.add(arm)
            self.n_uniq.append(len(seen))
        self.metric_pos = [p for p, _ in self.metrics]
        self.low = folded(sent) if names is None else names.low[start:start + len(sent)] if names.low else None
        self.level_end, self.levels = _levels(sent)
        self._seed_ends: list[int] | None = None
        self._seeds: list[int] = []
        self._spread: bool | None = None
        self._row: dict | None = None
        self._test: str | None | bool = False   # not yet looked for
        self.lora = (self.low is None or "lora" in self.low) and names_lora(sent)   # "LoRA (r = 16, alpha = 32)": the adapter's locked settings

    def arms_before(self, pos: int) -> list[str]:
        """Distinct arms named before ``pos`` (paragraph offset), in first-named order."""
        return self.uniq[:self.n_uniq[bisect.bisect_left(self.arm_pos, pos - self.start)]]

    def metric_at(self, start: int, end: int) -> str | None:
        """The metric named right after the number ("92.6% well-formed answers", "2.84 of 4 groups
        correct"), else the last named before it, else the first named after it."""
        ka = bisect.bisect_left(self.metric_pos, end - self.start)
        if ka < len(self.metrics) and _RIGHT_AFTER.fullmatch(self.text[end - self.start:self.metric_pos[ka]]):
            return self.metrics[ka][1]
        kb = bisect.bisect_left(self.metric_pos, start - self.start)
        if kb:
            return self.metrics[kb - 1][1]
        return self.metrics[ka][1] if ka < len(self.metrics) else None

    def test(self) -> str | None:
        """The one test the sentence names (``words.named_test``), found once per sentence, not once per p."""
        if self._test is False:
            self._test = named_test(self.text, self.low)
        return self._test

    def level_at(self, pos: int) -> str:
        """The last "NN% CI" level written before ``pos`` in this sentence ("95" when none)."""
        k = bisect.bisect_right(self.level_end, pos - self.start)
        return self.levels[k - 1] if k else "95"

    def seed(self) -> int | None:
        """The first seed the sentence names (``words.seed_in``), from the same one scan as :meth:`seed_before`."""
        self._seed_index()
        return self._seeds[0] if self._seeds else None

    def _seed_index(self) -> None:
        if self._seed_ends is None:
            found = seed_mentions(self.text, self.low)
            self._seed_ends = [e for e, _ in found]
            self._seeds = [seed for _, seed in found]

    def seed_before(self, pos: int) -> int | None:
        """The seed named last before ``pos`` (paragraph offset): "seed 11 scored 0.632 and seed 23
        0.628" gives 23 before 0.628. The sentence's seed mentions are found once, not once per number
        (README failure 10: re-reading the sentence up to each number was quadratic)."""
        self._seed_index()
        k = bisect.bisect_right(self._seed_ends, pos - self.start)
        return self._seeds[k - 1] if k else None

    def seed_row(self, seeds: tuple) -> dict:
        """{paragraph offset of a number: (arm, seed)} for a run of as many numbers as the study has seeds,
        joined by "·", "/" or "|" right after an arm ("GRPO 70.13 · 70.13 · … · 70.13"): one value a seed, in
        the locked order (README failure 15); decided once per sentence."""
        if self._row is None:
            self._row = {}
            if len(seeds) >= 3 and self.arms and any(c in self.text for c in "·/|"):
                for k in _SEED_ROW.finditer(self.text):
                    i = bisect.bisect_left(self.arm_pos, k.start()) - 1
                    nums = list(_ROW_NUM.finditer(k.group(0)))
                    if i >= 0 and k.start() - self.arm_pos[i] <= 30 and len(nums) == len(seeds):
                        for n, seed in zip(nums, seeds, strict=True):
                            self._row[self.start + k.start() + n.start()] = (self.arms[i], seed)
        return self._row

    def spread_words(self) -> bool:
        """Whether the sentence speaks of the spread of seeds and names no interval (``_SEED_SPREAD``),
        decided once per sentence."""
        if self._spread is None:
            low = self.low
            ci = (low is None or any(w in low for w in ("ci", "interval", "confidence", "credible"))) \
                and _CI_WORDS.search(self.text) is not None   # (the words tested first: a scan costs more)
            self._spread = not ci \
                and (low is None or "seed" in low or "per" in low) and _SEED_SPREAD.search(self.text) is not None
        return self._spread


def _respectively(sent: str, s_start: int, located, out: dict, low: str | None = None) -> None:
    """"GRPO solves 66.0%, 64.8% and 63.0% of the puzzles (seeds 0, 1 and 2)": as many values as
    seeds in the list after them are the seeds' values, in the order written. ``located``: the
    sentence's numbers (the paragraph's would make a long paragraph quadratic); ``low``: ``folded(sent)``."""
    from audit.claims import _SEED_LIST

    for sl in matches_from(_SEED_LIST, sent, low, "seed"):
        seeds = [int(x) for x in re.findall(r"\d+", sl.group(1))]
        vals = [out[id(m)] for a, _, m in located if s_start <= a < s_start + sl.start() and id(m) in out
                and not out[id(m)].param and out[id(m)].role == "mean" and out[id(m)].arms]
        if len(vals) == len(seeds) > 1 and len({tuple(r.arms) for r in vals}) == 1:
            for r, seed in zip(vals, seeds, strict=True):
                r.seed = seed


_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)


def _respectively_arms(st: _Sentence, located, out: dict) -> None:
    """"GSPO, DAPO and AERO reach 0.650, 0.6355 and 0.612, respectively": as many means as arms named
    before the first of them are the arms' means, in the order written (each was read as the first arm's
    or the subject's, so a value of the second arm was an error against the first, and swapped values passed)."""
    if not _RESPECTIVELY.search(st.text):
        return
    vals = [(a, out[id(m)]) for a, _, m in located if st.start <= a < st.start + len(st.text) and id(m) in out
            and not out[id(m)].param and out[id(m)].role == "mean" and out[id(m)].seed is None]
    arms = st.arms_before(vals[0][0]) if vals else []
    if len(vals) == len(arms) > 1 and not any(st.arms_before(a) != arms for a, _ in vals):
        for (_, r), arm in zip(vals, arms, strict=True):
            r.arms = [arm]


_VALUE_LIST_SEP = re.compile(r"\s*%?\s*(?:,\s*(?:and\s+)?|\s+and\s+)\s*")


def _implied_respectively(text: str, arms: tuple, located, out: dict) -> None:
    """"a mean ZVF of 0.171 for GRPO, 0.175 for Dr. GRPO and 0.146 for AERO. The reward ... ended at 0.565,
    0.54625 and 0.55625": a sentence naming no arm whose values are one list ("a, b and c"), as many as the
    arms the sentence before it named, are those arms' values in that order ("respectively" left implied;
    each was read as the subject's)."""
    vals = [(a, b, out.get(id(m))) for a, b, m in located]
    if len(vals) != len(arms) or any(r is None or r.param or r.role != "mean" or r.seed is not None
                                     or r.metric != vals[0][2].metric for _, _, r in vals):
        return
    if all(_VALUE_LIST_SEP.fullmatch(text, b, a2) for (_, b, _), (a2, _, _) in zip(vals, vals[1:], strict=False)):
        for (_, _, r), arm in zip(vals, arms, strict=True):
            r.arms = [arm]


# "(GRPO / Dr. GRPO / AERO)": the arms a sentence's slash-joined values are, in order; "0.650 / 0.651 / 0.638"
_ARM_SLASHES = re.compile(r"\(([^()\d/]{1,40}(?:/[^()\d/]{1,40}){1,7})\)")
_SLASH_ROW = re.compile(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?%?(?:[ \t]*/[ \t]*[-−+]?\d+(?:\.\d+)?%?)+(?!\w|\.\d)")


def _slash_arms(st: _Sentence, vocab: Vocabulary, located, out: dict) -> None:
    """"ZVF 0.245 / 0.249 / 0.260 (GRPO / Dr. GRPO / AERO), reward 0.650 / 0.651 / 0.638": a run of values
    joined by "/" as long as a parenthesised "/" list of arms in the sentence holds one value of each arm,
    in that list's order (each was read as the last arm named before it, or none)."""
    arms: list[str] = []
    for k in _ARM_SLASHES.finditer(st.text):
        named = [vocab.arms_in(part.strip()) for part in k.group(1).split("/")]
        if all(len(n) == 1 and n[0][0] == 0 for n in named):
            arms = [n[0][1] for n in named]
            break
    if len(set(arms)) != len(arms) or len(arms) < 2:
        return
    by_start = {a - st.start: out.get(id(m)) for a, _, m in located}
    for row in _SLASH_ROW.finditer(st.text):
        nums = [row.start() + n.start() for n in _ROW_NUM.finditer(row.group(0))]
        if len(nums) == len(arms):
            for at, arm in zip(nums, arms, strict=True):
                r = by_start.get(at)
                if r is not None and not r.param and r.role == "mean" and r.seed is None:
                    r.arms, r.pair = [arm], None


# "the unadjusted p-values are 0.345, 0.174 and 0.152": a list of p-values after the arms they belong to
_P_LIST_BEFORE = re.compile(r"\bp[- ]?values\b[^.;:\d]{0,30}?(?:\bare|\bwere|:)\s*$", re.I)
_LIST_SEP = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)\s*")


def _listed_contrasts(st: _Sentence, text: str, located, out: dict) -> None:
    """"GRPO +5.8 [...], DAPO +9.3 [...], GSPO +8.8 [...]; the unadjusted p-values are 0.345, 0.174 and
    0.152": a list of as many p-values as arms named before it are those arms' contrasts' p-values, in the
    order written, against the baseline of the first one's contrast (each was read as the last arm's)."""
    vals = [(a, b, out[id(m)]) for a, b, m in located if st.start <= a < st.start + len(st.text) and id(m) in out
            and out[id(m)].role in ("p", "p_adjusted") and out[id(m)].pair]
    if len(vals) < 2 or not _P_LIST_BEFORE.search(text, max(st.start, vals[0][0] - 60), vals[0][0]):
        return
    if any(not _LIST_SEP.fullmatch(text, b0, a1) for (_, b0, _), (a1, _, _) in zip(vals, vals[1:], strict=False)):
        return
    base = vals[0][2].pair[1]
    arms = [a for a in st.arms_before(vals[0][0]) if a != base]
    if len(arms) == len(vals):
        for (_, _, r), arm in zip(vals, arms, strict=True):
            r.pair = (arm, base)


# "from the observed SD of that arm's paired differences (0.0100, ...": the SD of a contrast's paired differences
_DIFF_SD_BEFORE = re.compile(r"\b(?:SDs?|s\.d\.|standard\s+deviations?)\s+of\b[^.;:\d]{0,50}?\bdifferences?\b"
                             r"[^.;:\d]{0,6}?[(:]?\s*$", re.I)


def _listed_diff_sds(st: _Sentence, text: str, located, out: dict) -> None:
    """"The MDE is 0.0144 for DAPO, 0.0082 for Dr. GRPO and 0.0071 for GSPO, each from the observed SD of
    that arm's paired differences (0.0100, 0.0057 and 0.0050)": a list of SDs of the paired differences
    holds the ``diff_sd`` of the contrasts the sentence's earlier list of contrast statistics named, in
    the order written (each was read as an arm's mean)."""
    vals = [(a, b, out[id(m)]) for a, b, m in located if id(m) in out and not out[id(m)].param]
    i = next((k for k, (a, _, _) in enumerate(vals) if _DIFF_SD_BEFORE.search(text, max(st.start, a - 80), a)), None)
    if i is None:
        return
    run = [vals[i]]
    for nxt in vals[i + 1:]:
        if not _LIST_SEP.fullmatch(text, run[-1][1], nxt[0]):
            break
        run.append(nxt)
    pairs = list(dict.fromkeys(r.pair for _, _, r in vals[:i] if r.pair and r.role in _CONTRAST_ROLES))
    if len(run) > 1 and len(pairs) == len(run):
        for (_, _, r), pair in zip(run, pairs, strict=True):
            r.role, r.pair, r.arms, r.contrast, r.seed = "sd", pair, [], True, None


_PLUS_SEP = re.compile(r"\s*(?:\+|,\s*(?:and\s+)?|\s+and\s+)\s*")


def _listed_metrics(st: _Sentence, text: str, located, out: dict) -> None:
    """"the zero-variance fraction and the group utilisation add up to one (0.167 + 0.833 for GRPO)": as many
    values of one arm, joined by "+", "," or "and", as metrics named before the first of them are those
    metrics' values, in the order written (each was read as the last metric named)."""
    vals = [(a, b, out[id(m)]) for a, b, m in located if id(m) in out and not out[id(m)].param
            and out[id(m)].role == "mean" and out[id(m)].arms and m.role is None]
    if len(vals) < 2 or any(not _PLUS_SEP.fullmatch(text, b0, a1) for (_, b0, _), (a1, _, _) in zip(vals, vals[1:], strict=False)):
        return
    named = list(dict.fromkeys(x for pos, x in st.metrics if pos < vals[0][0] - st.start))
    if len(named) == len(vals) and len({tuple(r.arms) for _, _, r in vals}) == 1:
        for (_, _, r), metric in zip(vals, named, strict=True):
            r.metric = metric


@dataclass
class _Walk:
    """Where the reading of one paragraph stands: what carries from number to number (the previous
    value, the open interval end, the unit and kind of the last value) and from sentence to sentence
    (the subject arm, the metric, the pair of arms)."""

    text: str
    vocab: Vocabulary
    names: TextNames        # the names in any slice of ``text``, split once
    facts: _Covered
    legend: frozenset
    subject: str | None
    metric: str | None = None
    pair: tuple[str, str] | None = None
    last_kind: str = "mean"
    last_pct: bool = False
    first_arm: str | None = None
    low_end: tuple[int, bool] | None = None
    spread_end: int | None = None
    diff_pct: bool = False      # the sentence's last difference was in points
    margin_pct: bool = False    # the sentence's equivalence margin is in points: so is an interval after it
    lead_pct: bool = False      # a list item under a lead-in line that states percent
    lead_count: bool = False    # a list item under a lead-in line that states counts out of N
    noun_metric: str | None = None   # the count metric a noun right after a number named in this sentence
    prev_end: int = 0
    prev: Reading | None = None
    base: str | None = None     # the baseline a heading names ("## Against the SFT checkpoint"), else None
    head_base: str | None = None   # the heading's; a sentence opening "Against the SFT checkpoint: ..." names its own
    last_role: str | None = None   # the role of the previous sentence's last number ("...; at AERO's it is 0.21")
    last_arms: tuple = ()          # the arms the previous sentence named, in order (a list of values after it)


def _read_paragraph(para, located, vocab: Vocabulary, out: dict, parent: str | None = None,
                    legend: frozenset = frozenset(), lead: str | None = None, cut: SentenceCut | None = None,
                    pair: tuple[str, str] | None = None) -> str | None:
    """Read one paragraph's numbers into ``out``; returns the arm it is about (its first named arm,
    else ``parent``: the arm of the list item a nested bullet sits under, "- **GRPO**" > "- seed 3: 70.00%").
    ``legend``: the file's legend lines (:mod:`audit.markers`), whose p thresholds are labels;
    ``lead``: "pct" for a list item under a lead-in that states percent ("Held-out accuracy (%) on each seed:"),
    "count" under one that states counts out of N ("Problems solved per run, out of 500:"); ``cut``: read
    only some of its sentences (:class:`SentenceCut`); ``pair``: the contrast it starts from (a footnote's row)."""
    text = para[1]
    names, facts = cut.prepared[1:] if cut is not None and cut.prepared and cut.prepared[0] is text else (None, None)
    if names is None:
        names, facts = _prepared(text, vocab)
    w = _Walk(text, vocab, names, facts, legend, parent, pair=pair, lead_pct=lead == "pct", lead_count=lead == "count",
              last_kind="diff" if pair is not None and parent is None else "mean")   # a footnote on a contrast's row
    w.base = w.head_base = _heading_baseline(located, vocab)
    starts = [x[0] for x in located]
    sents = sentences(text)
    if cut is not None:
        sents = cut.enter(w, sents, located, starts)
    for s_start, s_end in sents:
        _read_sentence(w, s_start, s_end, located, starts, out)
    if cut is not None:
        cut.leave(w, located)
    return w.first_arm or parent


def _read_sentence(w: _Walk, s_start: int, s_end: int, located, starts: list[int], out: dict) -> None:
    """Read the numbers of one sentence of ``w``'s paragraph into ``out`` (``located``: the paragraph's
    (start, end, mention), ``starts`` their starts); what carries to the next sentence is left in ``w``."""
    text, vocab = w.text, w.vocab
    st = _Sentence(text[s_start:s_end], s_start, vocab, w.names)
    w.base = _lead_baseline(st.text, vocab) or w.head_base   # "Against the SFT checkpoint: GRPO +0.025 (...), DAPO ..."
    w.pair = _versus_subject(st.text, st.arms, w.subject, vocab) or _compared_first(st.text, vocab) \
        or _pair(st.arms, w.pair, vocab) or w.pair
    w.last_role = w.prev.role if w.prev is not None else None
    w.prev_end, w.prev, w.diff_pct, w.noun_metric, w.margin_pct = s_start, None, False, None, False
    mine = located[bisect.bisect_left(starts, s_start):bisect.bisect_left(starts, s_end)]
    for start, end, m in mine:
        out[id(m)] = _read_number(w, st, start, end, m)
    if mine:   # the sentence's numbers only: a paragraph's would make one long paragraph quadratic
        _respectively(st.text, s_start, mine, out, st.low)
        if st.low is None or "respectively" in st.low:
            _respectively_arms(st, mine, out)
        if st.low is None or "values" in st.low:
            _listed_contrasts(st, text, mine, out)
        if st.low is None or "differences" in st.low:
            _listed_diff_sds(st, text, mine, out)
        if len(st.metrics) > 1:
            _listed_metrics(st, text, mine, out)
        if len(st.uniq) > 1 and "/" in st.text and "(" in st.text:
            _slash_arms(st, vocab, mine, out)
        if not st.arms and len(w.last_arms) > 1:
            _implied_respectively(text, w.last_arms, mine, out)
    w.last_arms = tuple(dict.fromkeys(st.arms))
    if st.arms:
        w.subject = st.arms[0]
        w.first_arm = w.first_arm or st.arms[0]
    if st.metrics:
        w.metric = st.metrics[-1][1]


def _prepared(text: str, vocab: Vocabulary) -> tuple[TextNames, _Covered]:
    """The names and the facts' spans of a paragraph: found once for it, before any number is read."""
    names = TextNames(text, vocab)
    return names, _Covered(_fact_spans(text, names))


def prepare_cut(file: ParsedFile, line: int, vocab: Vocabulary) -> tuple:
    """(text, names, facts' spans) of the paragraph starting on ``line``, found once for every part that
    reads some of its sentences (:class:`SentenceCut`: found before the workers fork, not once per part)."""
    para = next(p for p in file_paragraphs(file) if p[0][0] == line)
    return (para[1], *_prepared(para[1], vocab))


def _names_state(w: _Walk, sents: list) -> None:
    """``w`` as :func:`_read_sentence` leaves it after ``sents`` in what depends on their names alone (the
    subject, metric, pair and first arm), without reading their numbers: the state a part of a long
    paragraph starts from, exact in these (a metric named once carries over any number of sentences)."""
    for a, b in sents:
        sent, hits, metrics = w.text[a:b], w.names.arms(a, b), w.names.metrics(a, b)
        w.vocab.remember("arms", sent, hits)   # as _Sentence does: _compared_first and audit.claims look them up
        w.vocab.remember("metrics", sent, metrics)
        arms = [x for _, x in hits]
        w.pair = _versus_subject(sent, arms, w.subject, w.vocab) or _compared_first(sent, w.vocab) \
            or _pair(arms, w.pair, w.vocab) or w.pair
        w.last_arms = tuple(dict.fromkeys(arms))
        if arms:
            w.subject = arms[0]
            w.first_arm = w.first_arm or arms[0]
        if metrics:
            w.metric = metrics[-1][1]


WARM_SENTENCES = 8   # sentences read before a cut to rebuild the reading's state there (SentenceCut)


def walk_state(w: _Walk) -> tuple:
    """All that carries from one sentence of a paragraph to the next in :func:`_read_sentence` (the rest of
    ``w`` is the paragraph's, or reset at each sentence): equal states read the next sentence alike."""
    return (*(getattr(w, f) for f in _STATE_FIELDS), w.prev.role if w.prev is not None else None)


# What carries from one sentence to the next (walk_state and SentenceCut.enter read the same list: one place)
_STATE_FIELDS = ("subject", "metric", "pair", "last_kind", "last_pct", "first_arm", "low_end", "spread_end", "last_arms")


@dataclass
class SentenceCut:
    """The sentences ``k0:k1`` of the paragraph that starts on line ``line``, read apart from the rest
    (audit.report_pool: one long paragraph, a one-line report of 5 MB, read by two workers; README
    failure 10). The reading state at sentence ``k0`` is ``state`` where the caller knows it, else it
    is rebuilt: what depends on the sentences' names alone exactly (:func:`_names_state`), then by
    reading the :data:`WARM_SENTENCES` sentences before it: ``start_state`` and ``end_state`` (:func:`walk_state`)
    say where the reading began and ended, so that the caller can check that one part's end is the
    next one's start, and read a part again from the true state where it is not. ``ids``: the
    ``id()`` of the paragraph's prose mentions this part decides (those found in its offsets ``lo:hi``,
    and in the first part those found nowhere); ``all_ids``: of all of them; ``prepared``: :func:`prepare_cut`'s
    (text, names, facts' spans) of the paragraph, where found before."""

    line: int
    k0: int
    k1: int
    lo: int
    hi: int
    state: tuple | None = None
    start_state: tuple | None = None
    end_state: tuple | None = None
    ids: frozenset = frozenset()
    all_ids: frozenset = frozenset()
    prepared: tuple = ()   # prepare_cut's, where found before

    def enter(self, w: _Walk, sents: list, located, starts: list[int]) -> list:
        """Set ``w`` to the state at sentence ``k0``; returns the sentences to read."""
        if self.state is not None:
            *carried, role = self.state
            for name, value in zip(_STATE_FIELDS, carried, strict=True):
                setattr(w, name, value)
            w.prev = Reading(role=role) if role is not None else None
        elif self.k0:
            _names_state(w, sents[:max(0, self.k0 - WARM_SENTENCES)])
            for s_start, s_end in sents[max(0, self.k0 - WARM_SENTENCES):self.k0]:
                _read_sentence(w, s_start, s_end, located, starts, {})
        self.start_state = walk_state(w)
        return sents[self.k0:self.k1]

    def leave(self, w: _Walk, located) -> None:
        self.end_state = walk_state(w)
        self.ids = frozenset(id(m) for a, _, m in located if self.lo <= a < self.hi)


_LOWER_BY = re.compile(r"\b(?:lower(?:s|ed)?|less|worse|below|behind|smaller|drops?|falls?|trails?|underperform(?:s|ed)?|lags?|"
                       r"reduc(?:es|ed)|decreas(?:es|ed)|cuts|hurts|worsen(?:s|ed))\b[^.;]{0,60}"
                       r"\bby\s*(?:about\s+|only\s+|roughly\s+)?$", re.I)
_AGAINST = re.compile(r"\s*(?:against|vs\.?|versus|compared\s+(?:to|with))\s*", re.I)
# The degrees of freedom of "t(5) = 7.72": a parameter of the statistic, not a value.
_DF_BEFORE = re.compile(r"\bt\s*\(\s*$")


def _read_number(w: _Walk, st: _Sentence, start: int, end: int, m: Mention) -> Reading:
    """One number of sentence ``st`` (``start:end``): a label, a value restated, or a statistic (role, metric, arms)."""
    if m.label_fact is not None and m.label_fact[0] == "seed" and m.role is None and m.status_hint == "label":
        return Reading(param=True)   # "(seed 3 is high)" names a run: the next value's words reach back past it
    text = w.text
    after = text[end:end + 40].lstrip("*_")   # "**+17.33** points": the emphasis closes before the unit
    to_role, to_pct = _to_range(text, st.start, start, end, m, w.low_end, w.names.low, _after_diff(w, start))
    w.low_end = (end, to_pct) if to_role == "low" else None
    r = Reading(percent=_reads_percent(w, start, m, after, to_role, to_pct))
    clause = text[w.prev_end:start]
    if _is_margin(text, st.start, start, m, after, w.names.low, end):
        r.role, r.percent = "margin", r.percent or bool(_PP.match(after))   # checked against the locked margin
        # as for any threshold: the arms named before it are not the next number's ("margin of 0.01, so the DAPO
        # result ... its 90% interval, [a, b]")
        w.prev_end, w.last_kind, w.margin_pct = end, "mean", r.percent
        return r
    if _is_label_number(w, start, m, after, clause):
        r.param = True
        return r
    if m.role is None and _seed_row_reading(w, st, start, end, m, r):
        return r
    prev = w.prev
    if prev is not None and m.role is None and to_role is None and _RESTATED.fullmatch(clause) and not _PP.match(after):
        # "4.7% (fraction 0.047)": the same value restated on another scale
        w.prev_end = end
        return Reading(arms=prev.arms, pair=prev.pair, seed=prev.seed, metric=prev.metric, role=prev.role,
                       level=prev.level, percent=r.percent)
    r.role = role = _role_of(w, st, start, m, after, clause, to_role, r)
    r.test, r.level = st.test() if role == "p" else None, st.level_at(start)
    _metric_of(w, st, r, start, end, m)
    r.percent = r.percent or _percent_left_off(w, r, m, start)
    r.seed = _seed_of(st, start, after, m)
    if _seed_spread(w, st, start, end, r.seed):
        r.param = True   # the range of the per-seed values (see _SEED_SPREAD)
        return r
    written = _written_pair(text, max(st.start, start - 60), start, w.names) if role in ("low", "high") else None
    arm_sd = role == "sd" and m.role is None and bool(_arm_after(text, end, w.names)
                                                      or _arm_after_unit(text, end, w.names))   # "sd 0.96 pts for GRPO"
    if role in ("low", "high"):
        _interval_end(w, st, start, m, r)
    every, n_every = every_after(after) if role in _CONTRAST_ROLES and m.role is None else (False, None)
    if every:   # "After Holm (0.156 for all three)": the statistic of each contrast against the baseline
        r.every, r.contrast, w.last_kind = (n_every, w.base or w.vocab.baseline), True, "diff"
    elif role in _CONTRAST_ROLES or (role in ("low", "high", "sd") and w.last_kind == "diff" and not arm_sd) or written \
            or (role == "sd" and m.role is None and _DIFF_SD.search(text, st.start, start)) \
            or _plus_range(text, end, m, role):   # "SD of the paired differences"; "from −0.003 to +0.002"
        # (the last: "the bootstrap CI for GSPO vs GRPO is [0.050, 0.167]": a contrast's interval)
        r.pair, r.contrast = (_pair_after(text, end, w.names) or _arm_pair_after(text, end, w.names, w.base)
                              or (written if role in ("low", "high") else
                                  _written_pair(text, max(st.start, start - 60), start, w.names))
                              or _heading_pair(w, st, start) or _own_change(w, st, start) or _nearest_pair(w, st, start, end, role) or w.pair), True
        if role in _CONTRAST_ROLES:
            w.last_kind = "diff"
    else:
        r.arms = _arms_of(w, st, start, end, role, clause)
        if role == "mean":
            w.last_kind = "mean"
    w.prev_end, w.prev = end, r
    if m.role is None:
        w.last_pct = r.percent
    return r


def _reads_percent(w: _Walk, start: int, m: Mention, after: str, to_role, to_pct: bool) -> bool:
    """Whether the words make the number a percent or points: its own "%", "pp" after it, the end of a range
    in percent, an interval end after a percent, "N points (" before it."""
    return bool(m.percent or is_points(after, m.decimals) or to_pct
                or ((m.role in ("low", "high", "pm") or to_role in ("low", "high")) and w.last_pct)
                or (m.role in ("low", "high") and _END_PP.match(after))
                or (m.role == "low" and _TO_UNIT.match(after))   # "runs from −1.3 to +6.7 points": both in points
                or (m.role in ("low", "high") and w.margin_pct)   # "within the ±2-point margin (..., 90% CI [0.11, 0.85])"
                or (m.role is None and w.text.find("(", max(0, start - 24), start) >= 0
                    and _PP_THEN_PAREN.search(w.text, max(0, start - 24), start)))


def _seed_row_reading(w: _Walk, st: _Sentence, start: int, end: int, m: Mention, r: Reading) -> bool:
    """"GRPO 70.13 · 70.13 · …" (:meth:`_Sentence.seed_row`): ``r`` becomes that arm's run of the seed at this
    place; False when the number is in no such line."""
    row = st.seed_row(w.vocab.seeds).get(start)
    if row is None:
        return False
    r.role, r.arms, r.seed = "mean", [row[0]], row[1]
    _metric_of(w, st, r, start, end, m)
    # a fraction metric's per-seed value above 1 is in percent ("(%)" is often said once, above the rows)
    r.percent = r.percent or (r.metric in w.vocab.fractions and bool(m.decimals) and 1 < abs(m.value) <= 100)
    w.prev_end, w.prev, w.last_kind = end, r, "mean"
    return True


_TO_PLUS = re.compile(r"\s*(?:%|pp\b|points?\b)?\s*(?:to\s+|[,–]\s*)\+\d")


def _in_points(w: _Walk, start: int, m: Mention, clause: str, role: str | None, prev: Reading | None) -> bool:
    """Whether a number with no percent sign of its own is in percent or points by what came before it (the
    unit of the statistic it repeats, of the mean it follows, of the table row's lead)."""
    if role == "diff" and (_PARALLEL.search(clause) or (
            _LIST_NEXT.fullmatch(clause) and len(w.names.arms(w.prev_end, start)) == 1)) and (
            w.diff_pct or (prev is not None and prev.role == "diff" and prev.percent)):
        return True  # "GSPO gains 1.8 points (p < 0.001) and AERO loses 2.0": the second in points too
    if role == "diff" and abs(m.value) > 1 and prev is not None \
            and prev.percent and prev.role == "mean" and w.vocab.primary not in w.vocab.counts:
        return True  # "GSPO: 65.0% (+1.8 vs GRPO)": after a percent, a change above 1 is in points
    if role == "mde" and _RANGE_POINTS.match(w.text, start + len(m.text)):
        return True  # "detects a paired difference between 0.85 (Dr. GRPO) and 1.31 (DAPO) points"
    if role in ("mde", "dz", "sd") and prev is not None and prev.role == role \
            and prev.percent and _AND.fullmatch(clause):
        return True  # "2.6 points for GSPO and 2.7 for AERO", "19.1 points for GSPO (20.6 for DAPO)"
    if role in (None, "mean") and w.lead_pct:
        return True  # "Held-out accuracy (%) on each seed:" over "- seed 17: grpo 63.4, gspo 65.8"
    if role == "sd" and prev is not None and prev.percent and prev.role == "mean":
        return True  # "GSPO 57.8% (sd 6.3)": the SD of a percent mean is in points too
    return False


def _interval_end(w: _Walk, st: _Sentence, start: int, m: Mention, r: Reading) -> None:
    """An interval end's method from the words before it ("the t-based interval ... [0.049,"), and a
    difference's interval whose value is in a macro ("a gain of \\gspoDelta{} (95% CI [1.56, 1.95] pp")."""
    r.methods = interval_kinds(w.text[max(st.start, start - 160):start])
    if m.role is not None and _ends_naming_ci(w.text, max(st.start, start - 60), start) \
            and _DIFF_CI.search(w.text, max(st.start, start - 60), start):
        w.last_kind = "diff"


def _ends_naming_ci(text: str, a: int, b: int) -> bool:
    """False only where ``_DIFF_CI`` cannot match in ``text[a:b]``: its matches end with "CI" or "confidence interval",
    then spaces, ":" and "[" (a pre-test: the pattern is tried at each of 60 characters before an interval's end)."""
    t = text[a:b].rstrip()
    t = t[:-1].rstrip() if t.endswith("[") else t
    t = t[:-1].rstrip() if t.endswith(":") else t
    low = folded(t[-8:])
    return low is None or low.endswith(("ci", "interval"))


def _seed_of(st: _Sentence, start: int, after: str, m: Mention) -> int | None:
    """The seed a value reports: the one named right after it ("0.44 (seed 23)"), else the last one named before
    it in the sentence ("seed 11 scored 0.632 and seed 23 0.628"), else the sentence's."""
    own = _SEED_AFTER.match(after) if not after.isascii() or "seed" in after.lower() else None   # each match names a seed
    seed = int(own.group(1) or own.group(2)) if own else st.seed_before(start) if m.role is None else None
    return seed if seed is not None else st.seed()


def _plus_range(text: str, end: int, m: Mention, role: str | None) -> bool:
    """"Dr. GRPO's 95 % interval, from −0.003375 to +0.00275": an interval "A to B" with an end signed "+" is a
    difference's (a "+" is written on a change, never on an arm's own value), so the contrast's interval."""
    return (role == "high" and m.text[:1] == "+") or (role == "low" and _TO_PLUS.match(text, end) is not None)


def _is_margin(text: str, s_start: int, start: int, m: Mention, after: str, low: str | None = None,
               end: int | None = None) -> bool:
    """An equivalence margin: "within our ±1-point margin", "the registered margin of \\qty{1}{\\pp}" (a "±"
    alone, after no value: a bound, not a spread). ``low``: ``folded(text)`` or None, ``end``: where the number
    ends (``after`` lies in ``text[end:end + 40]``): each pattern then runs only where "margin" is in its window."""
    lone = m.role is None or (m.role == "pm" and not _PM_AFTER_VALUE.search(text, max(0, start - 8), start))
    if lone and (low is None or low.find("tost", max(s_start, start - 80), start) >= 0) \
            and _TOST_P_BEFORE.search(text, max(s_start, start - 80), start):
        return False   # "The TOST p against the ±0.01 margin is 0.336": the p, not the margin
    if not lone:
        return False
    lo = max(s_start, start - 40)
    if low is not None and end is not None:
        return (low.find("margin", end, end + 40) >= 0 and _MARGIN_AFTER.match(after) is not None) \
            or (low.find("margin", lo, start) >= 0 and _MARGIN_BEFORE.search(text, lo, start) is not None)
    return bool(_MARGIN_AFTER.match(after) or _MARGIN_BEFORE.search(text, lo, start))


def _percent_left_off(w: _Walk, r: Reading, m: Mention, start: int) -> bool:
    """"... +2.0 pts ... where GRPO got 56.8 and GSPO 56.6": a mean of a fraction metric written above 1 with
    decimals, after a percent or points in its paragraph, is that metric in percent with the % left off."""
    return r.role == "mean" and m.role is None and not m.percent and bool(m.decimals) and 1 < abs(m.value) <= 100 \
        and r.metric in w.vocab.fractions and (_PCT_CUE.search(w.text, max(0, start - 400), start) is not None
                                               or _ARROW_PAIR.search(w.text, max(0, start - 24), start) is not None
                                               or _ARROW_PAIR_AFTER.match(w.text, start + len(m.text)) is not None)


# "s101 64.5 → 57.5": a value and what it became, both above 1 with decimals: one quantity in one unit, a
# fraction metric's percent with the % left off on both sides (either side read alone is the same)
_ARROW_PAIR = re.compile(r"(?<![\d.])(?:100|\d{1,2})\.\d+\s*(?:→|->|⟶|⇒)\s*$")
_ARROW_PAIR_AFTER = re.compile(r"\s*(?:→|->|⟶|⇒)\s*(?:100|\d{1,2})\.\d+(?![\d.%])")


# A heading that names what the section's arms are compared with: "Against the SFT checkpoint
# (exploratory)", "vs. base model", "Relative to GRPO".
_HEAD_AGAINST = re.compile(r"^\W*(?:\d+(?:\.\d+)*\.?\s+)?(?:(?:gains?|improvements?|differences?|changes?|contrasts?)\s+"
                           r"(?:over|against|vs\.?|versus|relative\s+to|compared\s+(?:to|with))|against|vs\.?|versus|"
                           r"relative\s+to|compared\s+(?:to|with))\s+(?:the\s+)?", re.I)


def _heading_pair(w: _Walk, st: _Sentence, start: int) -> tuple[str, str] | None:
    """Under a heading naming what the arms are compared with, a contrast statistic is the last other arm
    named before it in the sentence against that ("GRPO +5.8 points [...], DAPO +9.3 [...]")."""
    if not w.base:
        return None
    k = bisect.bisect_left(st.arm_pos, start - st.start)   # the arm named last, even if named earlier too
    recent = [a for a in st.arms[:k] if a != w.base]
    return (recent[-1], w.base) if recent else None


def _heading_baseline(located, vocab: Vocabulary) -> str | None:
    """The arm the innermost heading over a paragraph names as what its arms are compared with ("## Against
    the SFT checkpoint", "## Gains over the base model"): a contrast statistic under it whose pair no
    words name is the arm before it against the heading's ("GRPO +5.8 points [...], DAPO +9.3 [...]")."""
    scope = getattr(located[0][2], "scope", ()) if located else ()
    head = scope[-1] if scope else ""
    m = _HEAD_AGAINST.match(head)
    hits = vocab.arms_in(head[m.end():]) if m else []
    return hits[0][1] if hits and hits[0][0] == 0 else None


def _lead_baseline(sent: str, vocab: Vocabulary) -> str | None:
    """The arm a sentence opens by naming as what its arms are compared with, as a heading would ("Against
    the SFT checkpoint (exploratory): GRPO +0.025 (...), DAPO +0.044 (...)", "vs SFT: GSPO +6.25 pts, ..."):
    each contrast statistic in it is the arm before it against that one (README failure 15)."""
    m = _HEAD_AGAINST.match(sent) if sent[:40].lstrip("*_ -").lower().startswith(_LEAD_WORDS) else None
    hits = vocab.arms_in(sent[m.end():m.end() + 60]) if m else []
    return hits[0][1] if hits and hits[0][0] == 0 else None


_LEAD_WORDS = ("against", "vs", "versus", "relative", "compared", "gain", "improvement", "difference", "change",
               "contrast")   # what _HEAD_AGAINST can start with (a cheap test before the pattern, once a sentence)


_MINUS_WORDS = ("-", "−", "–", "—", "minus", "vs", "versus")   # one of them is in each _MINUS_GAP match
_MINUS_GAP = re.compile(r"[\w.\s]+?\s*(?:[−–—-]|\bminus\b|\bvs\.?|\bversus\b)\s*")


def _written_pair(text: str, lo: int, start: int, names: TextNames) -> tuple[str, str] | None:
    """The contrast written just before a statistic as "A − B" ("and GRPO − SFT is +0.074 ([−0.017,
    0.161]; p = 0.230)", "Base − SFT is −0.074"): its arms in the order written, the last such pair
    before the number (a sentence naming three arms otherwise reads the last arm against the baseline)."""
    window = text[lo:start]
    if not any(c in window for c in _MINUS_WORDS):
        return None   # no "−", "minus", "vs" or "versus" for _MINUS_GAP to span (its pattern is case-sensitive)
    hits = names.arms(lo, start)
    for (p1, a1), (p2, a2) in reversed(list(zip(hits, hits[1:], strict=False))):
        if a1 != a2 and _MINUS_GAP.fullmatch(window, p1, p2):
            return (a1, a2)
    return None


def _own_change(w: _Walk, st: _Sentence, start: int) -> tuple[str, str] | None:
    """(arm, baseline) for a change written right after its arm ("The DAPO gain of 0.62 points ..., and
    AERO's deficit of 1.02 points"): each against the baseline, not the sentence's two arms."""
    base = w.vocab.baseline
    k = bisect.bisect_left(st.arm_pos, start - st.start)
    if not k or not base or st.arms[k - 1] == base:
        return None
    a, b = st.arm_pos[k - 1], start - st.start
    if st.low is not None and not any(st.low.find(noun, a, b) >= 0 for noun in _OWN_NOUNS):
        return None   # no noun for _OWN_NAME's look-ahead to find (the lazy name tried at each character)
    tail = st.text[a:b]
    name = _OWN_NAME.match(tail)
    if name is None or len(name.group()) > 20 or not _OWN_CHANGE.match(tail[name.end():]):
        return None
    return (st.arms[k - 1], base)


_OWN_NAME = re.compile(r"[A-Za-z0-9_.\- ]*?(?=\W*(?:'s|’s)?\s+(?:gain|deficit|loss|drop|improvement|advantage|lead|edge|"
                       r"shortfall|difference|change)\b)", re.I)
_OWN_NOUNS = ("gain", "deficit", "loss", "drop", "improvement", "advantage", "lead", "edge", "shortfall", "difference",
              "change")   # one of them is in each _OWN_NAME match's look-ahead


_OWN_CONTRAST_ROLES = ("power", "mde", "tost_p")   # statistics of one arm's contrast, never of a pair of arms


def _no_contrast(pair: tuple[str, str] | None, pairs: frozenset) -> bool:
    """Whether ``pair`` is two arms the plan contrasts in neither order (``pairs``: its declared contrasts)."""
    return bool(pairs) and pair is not None and pair not in pairs and pair[::-1] not in pairs


def _nearest_pair(w: _Walk, st: _Sentence, start: int, end: int, role: str) -> tuple[str, str] | None:
    """In a sentence naming three or more arms ("GSPO ... above GRPO (t(7) = 8.69), and DAPO's gain of
    0.85 ..."), or two the plan does not contrast ("the achieved power at GSPO's observed effect is 0.81;
    at AERO's it is 0.21"), a contrast statistic is the last non-baseline arm named before it against the
    baseline, not the sentence's pair. (Of two arms not contrasted, only a statistic of one arm's contrast, its
    power, MDE or TOST p: "GSPO leads DAPO by 1.4 points" is their own difference, which no contrast holds.)"""
    base = w.vocab.baseline
    loose = role in _OWN_CONTRAST_ROLES and _no_contrast(w.pair, w.vocab.pairs)
    if not base or (len(st.uniq) < 3 and not loose):
        return None
    if loose:   # the arm right after it ("1.75 points (GSPO)"), else the arm named last, even if named earlier
        own = _arm_after(w.text, end, w.names) or _arm_after_unit(w.text, end, w.names)   # too ("(DAPO) ..., so the DAPO result")
        if own is not None and own != base:
            return (own, base)
        named = st.arms[:bisect.bisect_left(st.arm_pos, start - st.start)]
        recent = [a for a in named if a != base]
        return (recent[-1], base) if recent else None
    recent = [a for a in st.arms_before(start) if a != base]
    return (recent[-1], base) if recent and (w.pair is None or recent[-1] not in w.pair) else None


# A relative change ("a 2.8% relative improvement", "47% relative to GRPO", "3.2% lower ... in relative
# terms", "a relative gain of 2.8%"): the analysis holds no ratio, so the number is left undecided, never
# read as an arm's mean or an absolute difference (README failure 10: no error on a correct number).
_RELATIVE_AFTER = re.compile(r"\s*%?\s*\)?\s*(?:relative\b|rel\.|[^.;()\d]{0,50}?\bin\s+relative\s+terms\b)", re.I)
_RELATIVE_BEFORE = re.compile(r"\brelative\s+(?:improvement|gain|increase|decrease|reduction|drop|change|difference)\s*"
                              r"(?:of|is|was|=|:)?\s*(?:about\s+|roughly\s+|only\s+)?$", re.I)
# "Across seeds GSPO ranges from 0.644 to 0.656", "AERO's seeds span 60.4% to 62.0%": the extremes of
# the per-seed values, which the analysis does not hold: undecided, not the arm's mean or interval.
_SEED_ROW = re.compile(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?%?(?:[ \t]*[·/|][ \t]*[-−+]?\d+(?:\.\d+)?%?){2,}(?![\w.])")
_ROW_NUM = re.compile(r"[-−+]?\d+(?:\.\d+)?")
_SEED_SPREAD = re.compile(r"\bseeds\b|\bper[- ]seed\b|\bseed[- ]to[- ]seed\b", re.I)   # "Seed-to-seed spread is ... roughly 0.7 to 1 point"


def _seed_spread(w: _Walk, st: _Sentence, start: int, end: int, seed: int | None) -> bool:
    """Whether the number is an end of "A to B" in a sentence about the spread of seeds (``_SEED_SPREAD``)."""
    low = seed is None and st.spread_words() and _TO_RANGE.match(w.text[end:end + 60]) is not None
    high = w.spread_end is not None and _TO_BEFORE.match(w.text[w.spread_end:start]) is not None
    w.spread_end = end if low else None
    return low or high


def _relative(text: str, start: int, end: int, m: Mention, low: str | None = None) -> bool:
    """A relative change (``_RELATIVE_AFTER``, ``_RELATIVE_BEFORE``); ``low``: ``folded(text)`` or None
    (the pattern before the number runs only where "relative" is in its window)."""
    return (m.percent or text[end:end + 2].lstrip().startswith("%")) and (
        _RELATIVE_AFTER.match(text, end, end + 80) is not None
        or ((low is None or low.find("relative", max(0, start - 60), start) >= 0)
            and _RELATIVE_BEFORE.search(text[max(0, start - 60):start]) is not None))


def _is_label_number(w: _Walk, start: int, m: Mention, after: str, clause: str) -> bool:
    """A number that names rather than reports: a fact audit.claims checks (seed list, n, counts), a
    legend's threshold ("* p < 0.05"), a parameter ("95% CI", "8 seeds"), a claim's own number, or
    the maximum of a count ("2.51 of 4")."""
    if start and w.text[start - 1] == "@":
        return True   # the 16 of "pass@16" names a metric (no value, nor the words of the next one)
    text, low = w.text, w.names.low
    if start in w.facts or (m.comparator and m.line in w.legend) or _relative(text, start, start + len(m.text), m, low):
        return True
    # (each pattern tried only where the character or word it needs is: "%", "(", "within", "detect")
    if _is_param(after) or (m.comparator is None and text.find("%", start, start + 12) >= 0
                            and (_LEVEL.match(text[start:start + 12]) or _LEVEL_WORDS.match(text, start, start + 40))) \
            or (text.find("(", max(0, start - 6), start) >= 0 and _DF_BEFORE.search(text[max(0, start - 6):start])
                and after.lstrip().startswith(")")) \
            or ((low is None or low.find("within", max(0, start - 30), start) >= 0)
                and CLAIM_BEFORE.search(text[max(0, start - 30):start])) \
            or ((low is None or low.find("detect", max(0, start - 60), start) >= 0)
                and _PARAM_BEFORE.search(text, max(0, start - 60), start)) \
            or (text.find("![", max(0, start - 200), start) >= 0 and _IMAGE_DIRECTIVE.search(text, max(0, start - 12), start)) \
            or (_may_name_before(text, start) and _NAMING_BEFORE.search(text, max(0, start - 12), start)) \
            or _in_post_number(text, start) \
            or ((low is None or low.find("range", max(0, start - 24), start) >= 0)
                and _RANGE_BEFORE.search(text, max(0, start - 24), start)):
        return True
    if text.find("margin", max(0, start - 20), start) >= 0 or text.find("p", max(0, start - 60), start) >= 0:
        a = max(0, start - 60)
        before = text[a:start]
        if ((low is None or low.find("margin", a, start) >= 0) and _THRESHOLD_BEFORE.search(before)
                and not _TOST_P_BEFORE.search(before)) \
                or (0 < m.value <= 0.1 and (low is None or any(low.find(v, a, start) >= 0 for v in _ALPHA_VERBS))
                    and _ALPHA_BEFORE.search(before)):
            # "the equivalence margin of 0.01", "the adjusted p misses 0.05": a threshold, not a value; the
            # arms named before it are not the next number's ("margin of 0.01, so the DAPO result ...")
            w.prev_end, w.last_kind = start + len(m.text), "mean"
            return True
    if m.value == 0 and m.decimals == 0 and not m.exponent and _ZERO_REF.search(text[max(0, start - 24):start]):
        return True   # "the interval is entirely above 0", "excludes 0": zero is the reference, no value reported
    if (low is None or low.find("low", max(0, start - 12), start) >= 0 or low.find("above", max(0, start - 12), start) >= 0) \
            and _CI_BOUND.search(text, max(0, start - 50), start):
        return True   # "its whole 95% CI lies below −1pp": the bound the interval clears, no value reported
    if m.text == "+1" and _agrees(w, start):
        return True   # "+1 to Ana.", "... wrote: +1, ship it": a reply that agrees, opening its words
    return w.prev is not None and w.prev.metric in w.vocab.counts and _OF_MAX.search(clause) is not None


# "(from 0.6411 on seed 2 to 0.6733 on seed 5, a range of 0.0322)": the distance between two values, which the
# analysis does not hold (a label, not the arm's mean)
_RANGE_BEFORE = re.compile(r"\brange\s+(?:of|is|was)\s*(?:only\s+|about\s+|roughly\s+)?$", re.I)
# A threshold named before the number: the plan's equivalence margin, or the level a p is held against.
_THRESHOLD_BEFORE = re.compile(r"\bmargin\s+(?:of\s+|is\s+|=\s*)?(?:±\s*)?$", re.I)
_ALPHA_VERBS = ("below", "under", "misses", "above", "exceeds")   # one of them is in each _ALPHA_BEFORE match
_ALPHA_BEFORE = re.compile(r"\bp\b[^;]{0,40}?\b(?:is\s+)?(?:below|under|misses|above|exceeds)\s+$", re.I)
# A size the words set rather than report: a size a verdict needs the design to detect ("also needs the design to
# detect a 1-point gap").
# A number that names a part of the work or of the report: "within session 1", "lab meeting, week 49", "slide 3"
_NAMING_BEFORE = re.compile(r"\b(?:session|week|slide|post|part|chapter|appendix|page)\s*$", re.I)
_NAMING_WORDS = ("session", "week", "slide", "post", "part", "chapter", "appendix", "page")


def _may_name_before(text: str, start: int) -> bool:
    """False only where ``_NAMING_BEFORE`` cannot match before ``start``: its match is one of its words, then
    spaces, right before the number (a pre-test: the pattern was tried at each of 12 characters of every number)."""
    low = folded(text[max(0, start - 12):start].rstrip())
    return low is None or low.endswith(_NAMING_WORDS)
# A thread's post number opening its paragraph: "**3/9** GSPO − GRPO = ...", "4/9 But the registered test ..."
_POST_NUMBER = re.compile(r"\W{0,4}(\d+)\s*/\s*(\d+)\W{0,4}\s")


def _in_post_number(text: str, start: int) -> bool:
    """Whether ``start`` lies in a "k/n" post number that opens the paragraph (k no more than n)."""
    if start > 12:
        return False
    m = _POST_NUMBER.match(text)
    return m is not None and start < m.end() and 0 < int(m.group(1)) <= int(m.group(2))


# A sizing or placing directive in an image's alt text (Marp "![bg right:35%](...)", "![w:320](...)"): no value
_IMAGE_DIRECTIVE = re.compile(r"\b(?:right|left|top|bottom|w|h|width|height|blur|opacity|brightness|contrast|saturate|"
                              r"sepia|grayscale|invert|zoom)\s*:\s*$", re.I)
# "the MDE is 0.079: the observed 0.076 is right at the edge": the difference observed, set against the MDE
_OBSERVED = re.compile(r"\bobserved\s+(?:difference\s+|gain\s+|effect\s+|change\s+)?(?:of\s+)?$", re.I)
_MDE_CUE = re.compile(r"\bMDE\b|\bdetectable\b|\bdetect\b|\bpower\b", re.I)
# The paragraph speaks in percent before a number: a "%" or points ("+2.0 pts", "1.8 points", "pp").
_PCT_CUE = re.compile(r"\d\s*%|\d\s*(?:pp|pts?|points?)\b", re.I)
_PARAM_BEFORE = re.compile(r"\b(?:needs?|requires?|must|should|(?:has|have|had)\s+to)\b[^.;]{0,40}?\bdetect\s+(?:an?\s+)?$", re.I)
# An equivalence margin: "within the registered margin of \qty{1}{\pp}", "within our ±1-point margin" (the locked
# lock.analysis.equivalence_margin, in points where the words say so)
_PM_AFTER_VALUE = re.compile(r"[\d)\]%]\s*±\s*$")   # "0.045 ± 0.022": a ± after a value (a spread), not a bound alone
# The SD of a contrast's per-seed differences, named before its numbers: "The SD of the paired differences was 0.0624
# for DAPO", "the spread of the paired differences is small (SD 0.30 points for DAPO, 0.82 for GSPO)" (README failure 15)
_DIFF_SD = re.compile(r"\b(?:paired|per-seed|seed-level)\s+differences\b|\bSD\s+of\s+(?:the\s+)?differences\b", re.I)
_TOST_P_BEFORE = re.compile(r"\bTOST\s+p\b[^;=<]{0,50}?\b(?:is|was)\s*$", re.I)
# "TOST against the ±1-point equivalence margin gives p = ": the p of the TOST, no other test named between
_TOST_THEN_P = re.compile(r"\bTOST\b(?:(?!\b(?:t-?tests?|paired|bootstrap|wilcoxon|welch|sign)\b)[^;=<]){0,70}?\bp\s*[=<≤:]\s*$",
                          re.I)
_MARGIN_BEFORE = re.compile(r"\bmargin\s*(?:of|=|:|is)?\s*±?\s*$", re.I)
_MARGIN_AFTER = re.compile(r"\s*(?:pp\b|percentage[\s-]+points?\b|-?points?\b|pts\b|%)?\s*(?:equivalence\s+)?margin\b", re.I)


# After a "+1" that opens a reply: agreement ("+1 to Ana", "+1, ...", "+1!"), not a number of the study.
_AGREE = re.compile(r"\s*(?:to\s+[A-Z@]|[,.!:;]|$)")


def _agrees(w: _Walk, start: int) -> bool:
    """Whether the "+1" at ``start`` opens its words (the paragraph, or after "... wrote:") and agrees: "+1 to
    Ana", "+1," (never "+1 to GRPO": a name after "to" that is an arm makes it a difference)."""
    agree = _AGREE.match(w.text, start + 2)
    j = start   # the words before it, stripped of " >*-" from the right, looked back over (not copied: a long
    while j and w.text[j - 1] in " >*-":   # paragraph of "+1" values was quadratic, README failure 10)
        j -= 1
    if agree is None or (j and w.text[j - 1] != ":"):
        return False
    return not any(p == 0 for p, _ in w.names.arms(agree.end() - 1, agree.end() + 24))   # (offsets from the slice)


_CI_BOUND = re.compile(r"\b(?:CI|interval)\b[^.;:\d]{0,30}?\b(?:below|above)\s+$", re.I)
_ZERO_REF = re.compile(r"\b(?:above|below|exclud(?:es|ing|e)|includ(?:es|ing|e)|contains?|cross(?:es|ing)?|over|under|"
                       r"than)\s+$", re.I)


# A lead-in line that states the unit of the list below it: "Held-out accuracy (%) on each seed:".
_LEAD_PCT = re.compile(r"\(\s*%\s*\)|\bin\s+(?:%|percent\b)|\bpercent(?:age)?s?\b", re.I)
# A lead-in line that says the list below it holds counts of items out of N: "Problems solved per run, out of
# 500:", "Item counts per seed, out of 60:" (items, not "groups ... out of 4": audit.claims._OUT_OF_ITEMS).
_LEAD_COUNT = re.compile(r"\bout\s+of\s+\d[\d,]*\b(?![.,]\d)", re.I)
# "Item counts per seed, out of 60", "(items correct out of 80)": items counted out of the held-out n
_OUT_OF_ITEMS = re.compile(r"\b(?:items?|problems?|questions?|puzzles?|examples?|boards?)\b", re.I)
# A p-value the words after it call adjusted: "0.163 after BH", "0.016 after the BH correction", "0.40 adjusted".
_ADJ_AFTER = re.compile(r"\s*(?:after\s*(?=[);,.]|$)|after\s+(?:it|that|this)\b|after\s+(?:the\s+)?(?:BH|Benjamini|Holm|Bonferroni|FDR|correction|adjustment|multiplicity)"
                        r"|(?:BH|Holm|Bonferroni|FDR)?[- ]?(?:adjusted|corrected)\b)", re.I)
_LOSES = re.compile(r"\b(?:loses|sheds|drops|falls|trails|declines|lost|shed|dropped|fell|trailed|declined)\s+(?:by\s+)?(?:only\s+|about\s+|roughly\s+|"
                    r"another\s+|a\s+further\s+)?$", re.I)
# "cannot tell a 1-point loss from nothing", "AERO's deficit of 1.02 points": a negative difference
_LOSS_AFTER = re.compile(r"\s*-?\s*(?:pp|percentage[\s-]+points?|points?|pts)\s+(?:loss|deficit|shortfall|decline|decrease)\b", re.I)
_LOSS_WORDS = ("deficit", "shortfall", "loss", "drop", "decline")   # one of them is in each _LOSS_BEFORE match
# ("so the AERO drop is ~1.7 points": the unsigned size of a drop)
_LOSS_BEFORE = re.compile(r"\b(?:deficit|shortfall|loss|drop|decline)\s+(?:of\s+|is\s+|was\s+)?"
                          r"(?:only\s+|about\s+|roughly\s+|[~≈]\s*)?$", re.I)
# "The DAPO gain of 0.62 points", "AERO's deficit of 1.02": the arm named just before its own change
_OWN_CHANGE = re.compile(r"^\W*(?:'s|’s)?\s+(?:gain|deficit|loss|drop|improvement|advantage|lead|edge|shortfall|"
                         r"difference|change)\s+(?:of\s+)?(?:only\s+|about\s+|roughly\s+)?$", re.I)
_AND_ARM = re.compile(r"\s*(?:,\s*and|,|and|while|but|whereas)\s+(?:for\s+)?(?:the\s+)?[^\d,;()]{1,24}", re.I)
# The next item of a list of arms' values: "GRPO +5.8 points [−3.5, 15.5], DAPO +9.3"
_LIST_NEXT = re.compile(r"\s*[\])]?\s*,\s*(?:and\s+)?[^\d,;()\[\]]{1,24}")
_PARALLEL = re.compile(r"\b(?:and|while|but|whereas)\b|;", re.I)


# A sentence that only names another arm and says "it is": the previous sentence's statistic, for that arm
_ELLIPSIS = re.compile(r"\W*(?:and\s+|but\s+|while\s+)?(?:at|for|in|with)\s+[^,;:()\d]{1,30}?,?\s+(?:it|this|that)\s+"
                       r"(?:is|was)\s+(?:only\s+|about\s+|just\s+)?", re.I)


def _role_of(w: _Walk, st: _Sentence, start: int, m: Mention, after: str, clause: str, to_role, r: Reading) -> str:
    """The statistic a number is: an interval end or SD by its own role, else the words before it
    ("BH-adjusted", "a gain of"), a signed value next to named arms, the statistic before it repeated
    ("X for A and Y for B"), "N points more than", "N pp"; else a mean. Sets ``r.negate`` for "less"."""
    prev = w.prev
    role = {"low": "low", "high": "high", "pm": "sd"}.get(m.role or "") or to_role \
        or lora_role(w.text[max(st.start, start - 40):start], st.lora) or role_before(clause)
    if role in (None, "p") and (w.names.low is None or w.names.low.find("tost", max(st.start, start - 80), start) >= 0) \
            and (_TOST_P_BEFORE if role is None else _TOST_THEN_P).search(w.text, max(st.start, start - 80), start):
        role = "tost_p"   # "The TOST p against the ±0.01 margin is 0.336", "TOST against the ±1-point margin gives p ="
    if role is None and prev is not None and prev.role == "alpha" and w.prev_end > st.start:
        role = role_before(w.text[max(st.start, w.prev_end - 100):start])   # "the MDE at α = 0.05 is 0.0144"
    if m.role == "pm" and HALF_WIDTH.search(st.text):
        role = "halfwidth"   # "0.045 ± 0.022 (half-width of the 95% CI)"
    low = w.names.low   # (patterns over the clause run only where the word they need is in it)
    if role is None and (low is None or low.find("observed", w.prev_end, start) >= 0) and _OBSERVED.search(clause) \
            and _MDE_CUE.search(st.text):
        role = "diff"    # "MDE ≈ 0.079: the observed 0.076 is right at the edge"
    if role is None and m.text.startswith("+"):
        role = "diff"    # "+0.214" next to named arms, "Do not read the +0.148 as ...": a signed number is a difference
    if role is None and prev is not None and prev.role == "sd" and prev.contrast and _AND.fullmatch(clause):
        role = "sd"   # "(SD 0.30 points for DAPO, 0.82 for GSPO)" of the paired differences: each contrast's
    if role is None and prev is not None and prev.role == "sd" and not prev.contrast \
            and (_AND.fullmatch(clause) or _VS.fullmatch(clause) or _AND_ASIDE.fullmatch(clause)) \
            and (_arm_after(w.text, start + len(m.text), w.names) or _arm_after_unit(w.text, start + len(m.text), w.names)):
        role = "sd"   # "SD ... is 5.8 points for GRPO, 4.8 for DAPO and 2.0 for GSPO": each arm's SD
    if role is None and prev is not None and prev.role in _CONTRAST_ROLES and (_AND.fullmatch(clause) or (
            m.role is None and _AND_ARM.fullmatch(clause) and len(w.names.arms(w.prev_end, start)) == 1)):
        role = prev.role   # "0.0042 for GSPO--GRPO and 0.0054 for AERO--GRPO", "GSPO gains 0.018 and DAPO 0.0035"
    last = prev.role if prev is not None else w.last_role
    if role is None and last in _CONTRAST_ROLES and _ELLIPSIS.fullmatch(clause):
        role = last   # "The achieved power at GSPO's observed effect is 0.81; at AERO's it is 0.21"
    if (role == "p" or (role is None and prev is not None and prev.role in ("p", "p_adjusted", "alpha"))) and _ADJ_AFTER.match(after):
        role = "p_adjusted"   # "p = 0.081 → 0.163 after BH", "and 0.016 after the BH correction", "(0.40 adjusted)"
    if role is None and m.text[:1] in "-−" and w.last_kind == "diff" and st.arms and m.role is None:
        role = "diff"    # "the gain of 3.9 points clears that bar; AERO's −1.05 does not"
        r.percent = r.percent or w.last_pct
    if role is None and (low is None or any(low.find(v, w.prev_end, start) >= 0 for v in _LOSS_WORDS)) \
            and _LOSS_BEFORE.search(clause):
        role = "diff"    # "AERO's deficit of 1.02 points"
    direction = diff_after(after) if role is None else None
    if direction is not None and (st.arms or _PP.match(after)):
        role = "diff"    # "10.7 points more than SFT"
        r.negate = direction in ("less", "fewer", "lower", "worse", "below")
    if role is None and _PP.match(after):
        role = "diff"    # "The gap is 1.78 pp": percentage points are a difference of percentages
    if role == "diff" and m.text[:1] not in "+-−" and (_LOWER_BY.search(clause) or _LOSES.search(clause)
                                                       or _LOSS_BEFORE.search(clause) or _LOSS_AFTER.match(after)):
        r.negate = True  # "AERO is lower than GRPO by 1.52 pp", "AERO loses 2.0": a difference of −1.52, −2.0
    if not r.percent and m.role is None:
        r.percent = _in_points(w, start, m, clause, role, prev)
    if role == "diff":
        w.diff_pct = r.percent
    return role or "mean"


_NOUN_AFTER = re.compile(r"\s*(?:more|fewer|additional|extra|less)?\s*([A-Za-z]{3,})\b", re.I)


@functools.lru_cache(maxsize=64)
def _count_nouns(counts: tuple[str, ...], metrics: frozenset[str]) -> dict[str, str]:
    """The first word of a count metric's id ("groups" of ``groups_correct``), where no other metric's id
    starts with it: what that count is counted in ("0.574 more groups"), singular or plural."""
    first: dict[str, set[str]] = {}
    for metric in metrics:
        word = metric.split("_", 1)[0].lower()
        if "_" in metric and len(word) > 2:
            first.setdefault(word, set()).add(metric)
    out = {}
    for word, ms in first.items():
        if len(ms) == 1 and next(iter(ms)) in counts:
            out[word] = out[word.rstrip("s")] = out[word.rstrip("s") + "s"] = next(iter(ms))
    return out


def _count_noun_after(w: _Walk, end: int) -> str | None:
    """The count metric named by the noun right after the number ("GRPO solves 0.574 more groups (of 4)"),
    else None: only right after a number, so "zero-variance groups" elsewhere names nothing."""
    if not w.vocab.counts:
        return None
    m = _NOUN_AFTER.match(w.text, end)
    if m is None:
        return None
    return _count_nouns(w.vocab.counts, frozenset(w.vocab.metrics.values())).get(m.group(1).lower())


def _metric_of(w: _Walk, st: _Sentence, r: Reading, start: int, end: int, m: Mention) -> None:
    """The metric named around the number, else the one carried from before (``r.carried``), else
    the one count metric for a count ("2.51 of 4"), else the primary; the paragraph's metric follows."""
    noun = _count_noun_after(w, end)
    if noun is not None:
        w.noun_metric = noun   # "0.574 more groups (of 4) than the base model (p = 0.028)": the p is that count's too
    elif w.noun_metric is not None and not any(st.start + q < start for q in st.metric_pos):
        noun = w.noun_metric
    named = noun or st.metric_at(start, end)
    r.carried = named is None and w.metric is not None
    w.metric = named or w.metric
    if m.scale == "count" and len(w.vocab.counts) == 1 and w.metric not in w.vocab.counts \
            and not any(st.start + q < start for q in st.metric_pos):
        w.metric = w.vocab.counts[0]   # "2.51 of 4", "+0.43 groups": the one count metric, for the sentence
        r.carried = False
    r.metric = w.metric or w.vocab.primary
    if w.lead_count and named is None and m.decimals == 0 and not m.percent and m.role is None and r.role == "mean":
        r.metric, r.count, r.carried = "heldout_correct", True, False   # "- seed 22: GRPO 25" under "... out of 60:"


def _arms_of(w: _Walk, st: _Sentence, start: int, end: int, role: str, clause: str) -> list[str]:
    """The arm(s) a value belongs to: named in the clause before it, right after it ("0.632 for GRPO"),
    the baseline of a "from X to Y" change, earlier in the sentence, else the paragraph's subject."""
    text, vocab, pair, prev = w.text, w.vocab, w.pair, w.prev
    c_arms = [a for _, a in w.names.arms(w.prev_end, start)]   # the clause's
    if c_arms and prev is not None and prev.arms == [c_arms[0]] and c_arms[0] in (
            _arm_after(text, w.prev_end, w.names), _arm_after_unit(text, w.prev_end, w.names)):
        c_arms = c_arms[1:]   # "0.627 for GSPO against 0.608 for GRPO": GSPO is the first number's
    nxt = _arm_after(text, end, w.names) or (_arm_after_unit(text, end, w.names) if role == "sd" else None)
    paren = _PAREN_ARM.match(text, end) if nxt and c_arms else None
    if paren and [a for _, a in w.names.arms(end, paren.end())] == [nxt]:
        return [nxt]   # "cuts it from 0.287 (GRPO) to 0.159": the arm in parentheses right after the value is its own
    if nxt and c_arms and clause.rstrip(" *_").endswith("("):
        return [nxt]   # "slightly lower than for the base model (91.00% for Dr. GRPO": the aside names its own arm
    if role == "mean" and not nxt and c_arms and (w.names.low is None or w.names.low.find("to", w.prev_end, start) >= 0) \
            and _TO_NEW.search(clause):
        mover = _changed_arm(st, start)
        if mover is not None and mover not in c_arms:
            return [mover]   # "GSPO increases accuracy by 0.018 over GRPO (a 2.8% relative increase, to 0.650)"
    if role in ("sd", "low", "high") and not c_arms and not nxt and prev is not None and prev.role == "mean" \
            and len(prev.arms) == 1:
        return list(prev.arms)   # "GRPO 46.7% (sd 4.4), DAPO 50.6% (sd 4.2)": the spread of the mean just before
    if set(c_arms) <= {pair and pair[0]} and not nxt and pair and role == "mean" \
            and _FROM_TO.match(text, end) and _FROM.search(clause):
        c_arms = [pair[1]]   # "DAPO ... drops from 0.416 to 0.221": GRPO's (the baseline's), then DAPO's
    elif not c_arms and not nxt and pair and prev is not None and _FROM_TO.match(text, w.prev_end) \
            and _TO.fullmatch(clause) and prev.arms == [pair[1]]:
        # "DAPO drops from 0.416 to 0.221": the baseline's, then DAPO's; "the base model dropped (0.406 to
        # 0.386)": the arm named right before the first value is the second's too
        k = bisect.bisect_left(st.arm_pos, w.prev_end - st.start)
        own = k and st.arms[k - 1] == pair[1] and "from" not in text[st.start + st.arm_pos[k - 1]:w.prev_end].lower()
        nxt = pair[1] if own else pair[0]   # ("over GRPO, from 63.2% to 65.0%": GRPO's, then GSPO's)
    elif not c_arms and not nxt and prev is not None and prev.role == role and len(prev.arms) == 1 \
            and _PAREN_TO.fullmatch(clause):
        others = {a for a in st.arms_before(start) if a not in prev.arms}
        nxt = others.pop() if len(others) == 1 else None   # "DAPO cuts it from 0.287 (GRPO) to 0.159": DAPO's
    lead = st.arms_before(start) if not c_arms and not nxt else []
    arms = (list(dict.fromkeys(c_arms)) if c_arms else [nxt] if nxt else lead if lead else
            [w.subject] if w.subject else list(st.uniq))
    if not nxt and role == "mean" and len(arms) == 1 and vocab.baseline and arms[0] != vocab.baseline \
            and (_ARROW.match(text, end) or (_FROM_OF_TO.match(text, end) and _FROM.search(clause))):
        return [vocab.baseline]   # "GSPO: 61.9% → 65.8%", "AERO cuts them from 36.45 % of groups to 26.1 %"
    return arms if nxt else _against_pair(w, role, clause, end, arms, bool(c_arms))


# "..., to 0.650" after a verb of change: the new value of the arm that changed (named before the verb), not of
# the arm it changed against ("GSPO increases accuracy by 0.018 over GRPO (a 2.8% relative increase, to 0.650)")
_TO_NEW = re.compile(r"(?:^|[,;(]\s*|\s)to\s*$", re.I)
_CHANGE_VERB = re.compile(r"\b(?:increase[sd]?|rais(?:es|ed)|ris(?:es|en)|rose|improv(?:es|ed)|climb(?:s|ed)|lift(?:s|ed)|"
                          r"boost(?:s|ed)|decrease[sd]?|drop(?:s|ped)|f[ae]ll|falls|declin(?:es|ed)|lower(?:s|ed)|cuts?)\b", re.I)


def _changed_arm(st: _Sentence, start: int) -> str | None:
    """The arm named last before the sentence's first verb of change ("GSPO increases ... over GRPO (a
    relative increase, to"), or None: no such verb before ``start``, no arm before it, or a "from" after it."""
    verb = _CHANGE_VERB.search(st.text, 0, start - st.start)
    if verb is None or "from " in st.text[verb.end():start - st.start].lower():
        return None
    k = bisect.bisect_left(st.arm_pos, verb.start())
    return st.arms[k - 1] if k else None


# A change written as "x → y" or "from x of groups to y": x is the baseline's value, y the arm's.
_ARROW = re.compile(r"\s*(?:%|pp\b)?\s*(?:→|->|⟶)\s*[−+\-]?\d")
_FROM_OF_TO = re.compile(r"\s*(?:%|pp\b)?\s*(?:of\s+[a-z-]+\s+)?to\s+[−+\-]?\d", re.I)


# "DAPO edges out Dr. GRPO, 63.6% to 63.4%": a score, the two values the two arms' in order (not after "from")
_SCORE_TO = re.compile(r"\s*(?:%|pp\b)?\s*to\s+[−+\-]?\d")
_SCORE_TO_CLAUSE = re.compile(r"\s*(?:%|pp\b)?\s*to\s*")
_AGAINST_NUMBER = re.compile(r"\s*(?:against|vs\.?|versus|compared\s+(?:to|with))\s*[−+\-]?\d", re.I)


def _ends_with_from(text: str, end: int) -> bool:
    """``_FROM.search(text[:end])``, looking back from ``end`` over the spaces only: copying and scanning
    everything before each number was quadratic in a one-paragraph report (README failure 10)."""
    j = end
    while j and text[j - 1].isspace():   # \s is str.isspace; \w is str.isalnum or "_"
        j -= 1
    return j >= 4 and text[j - 4:j].lower() == "from" and not (j > 4 and (text[j - 5].isalnum() or text[j - 5] == "_"))


def _against_pair(w: _Walk, role: str, clause: str, end: int, arms: list[str], named: bool) -> list[str]:
    """The arm of each value of "x against y" when no arm is named between them: with two arms named
    before ("GSPO stays above Dr. GRPO: 0.650 against 0.631") the values are theirs in the order
    written; with one ("DAPO halves ZVF (0.154 against 0.328)") the second is the baseline's."""
    prev, baseline = w.prev, w.vocab.baseline
    score = len(arms) == 2 and not _ends_with_from(w.text, end) and "from " not in w.text[max(0, end - 80):end]
    if len(arms) == 2 and (_AGAINST_NUMBER.match(w.text, end) or (score and _SCORE_TO.match(w.text, end))):
        return arms[:1]
    if named or prev is None or prev.role != role or not (_AGAINST.fullmatch(clause) or (
            score and _SCORE_TO_CLAUSE.fullmatch(clause))):
        return arms
    if len(arms) == 2 and prev.arms == arms[:1]:
        return arms[1:]
    if prev.arms == arms and baseline and arms != [baseline]:
        return [baseline]
    return arms


# "p_bh", "p_holm", "$p_{\text{Bonf}}$" (pandas and LaTeX column names) are adjusted p too, "p_raw" and
# "p (unadjusted)" are not (README failure 15)
_COL_ROLE = (("p_adjusted", re.compile(r"(?<!un)adj|(?<!un)corrected|\bq\b|(?<![a-z])BH\b|Holm|Bonf|FDR", re.I)),
             ("p", re.compile(r"^\W*p(?![a-z])|p-?value|\sp\W*$", re.I)),
             ("mde", re.compile(r"\bMDE\b|detectable", re.I)),
             ("diff", re.compile(r"Δ|\bdiff|\bdelta\b|\bminus\b|\svs\.?\s|^\W*(?:change|gain|improvement)\b", re.I)),
             ("dz", re.compile(r"^\W*d\s*_?\s*z\W*$", re.I)),   # a "d<sub>z</sub>" column: the paired effect size
             ("t_stat", re.compile(r"^\W*t\s*(?:\(\s*\d+\s*\)|_\{?\d+\}?)?\W*$|\bt[- ]stat", re.I)))   # "t", "t(5)"
# "4.7% (fraction 0.047)", "0.047, i.e. 4.7%", "4.7% or 0.047": the same value restated. A bare comma
# is a list ("pass@16 0.941, 92.6% well-formed answers"), not a restatement.
_RESTATED = re.compile(r"\s*(?:\(|[,;]?\s*(?:as\s+a\s+|or\s+|i\.e\.|that\s+is\b|=))[\s(,;]*"
                       r"(?:(?:as\s+a\s+|or\s+|i\.e\.\s*|that\s+is\s*|=\s*)*(?:fraction|percent|proportion)?\s*)", re.I)


_VERSUS = re.compile(r"\b(?:vs\.?|versus|against|relative\s+to|compared\s+(?:to|with)|minus)\s*|\s[−–-]\s*", re.I)
_NUM_PCT = re.compile(r"\d\s*%")
_CELL_PP = re.compile(r"\d\s*(?:\]|\))?\s*(?:pp\b|percentage\s+points?\b|pts?\b|points?\b)", re.I)
_HEAD_PCT = re.compile(r"\(\s*%\s*\)|\bpercent(?:age)?s?\b|\bin\s+%", re.I)
_UNIT = re.compile(r"%|\bpercent|\bpp\b|\bfraction\b|\bproportion\b|\bcount\b|\bof\s+\d|\d\s*[-–]\s*\d", re.I)
# columns whose numbers are counts or probabilities, never the metric's value: a heading's "(percent)" is not theirs
_NOT_A_VALUE = re.compile(r"\b(?:pairs?|items?|seeds?|runs?|n|count|probability|p)\b|#", re.I)
_SD_WORD = re.compile(r"\bs\.?d\.?\b|(?<![a-z])std\b|standard dev", re.I)   # "acc_std": pandas' column name
_MEAN_PAREN_SD = re.compile(r"\bmean\s*\(\s*(?:std|s\.?d\.?)\s*\)", re.I)   # "60.98 (0.67)" cells


@dataclass(frozen=True)
class _LabelWords:
    """What a cell's row label, column header and heading say, read once per (row, column, heading):
    every cell of a column asks the same (README failure 10: a 5 MB table has 400,000 cells)."""

    col: str                 # the label that names the statistic: the column, else the row label
    col_role: str | None     # p_adjusted | p | mde | diff named by it
    col_sd: bool             # it names an SD
    level: str               # its "NN% CI" level ("95" when none)
    heading_pct: bool        # "## Accuracy (%)" over labels that state no unit, on a value column


@functools.lru_cache(maxsize=4096)
def row_states_percent(cells: tuple) -> bool:
    """Whether a value cell of a table row (not its label) writes a percent ("61.97 %"; "95% CI" is a
    level): the unit of the row's interval ends written without one. Once per row (audit.trace keys its
    memo of cell decisions by it)."""
    return any(_NUM_PCT.search(c) and not _LEVEL.search(c) for c in cells[1:])


@per_line   # once per heading (every cell under it shares the heading string), not once per cell
def heading_percent(heading: str) -> bool:
    """Whether a heading states percent ("## Accuracy (%)"): what a table cell's reading takes from it
    besides the metric it names (audit.trace keys its memo of cell decisions by these two)."""
    return bool(_HEAD_PCT.search(heading))


# A column holding one end of an interval: "95% CI low", "CI high", "lower bound", "lo95", "hi95" (README failure 15)
_CI_END_COL = re.compile(r"\b(?:CI|interval|bound)\W*(?P<a>low(?:er)?|lo|high(?:er)?|hi|upper)\b|"
                         r"\b(?P<b>low(?:er)?|upper)\s+(?:CI|bound|end|limit)\b|^\W*(?P<c>lo|hi)\s*\d{2}\W*$", re.I)


def _ci_end_column(column: str) -> str | None:
    """"low" or "high" when ``column`` names one end of an interval, else None."""
    k = _CI_END_COL.search(column) if column else None
    if k is None:
        return None
    word = (k.group("a") or k.group("b") or k.group("c")).lower()
    return "low" if word.startswith("lo") else "high"


@functools.lru_cache(maxsize=16384)
def _label_words(row: str, column: str, heading_pct: bool) -> _LabelWords:
    # the statistic is named by the column, or (metrics as rows, arms as columns) by the row label
    col = column
    if not any(rx.search(col) for _, rx in _COL_ROLE) and not _SD_WORD.search(col) and not _LEVEL.search(col):
        if any(rx.search(row) for _, rx in _COL_ROLE) or _SD_WORD.search(row) \
                or _LEVEL.search(row) or re.search(r"\bCI\b|interval", row, re.I):
            col = row
    lv = _LEVEL.findall(col)
    return _LabelWords(col, next((role for role, rx in _COL_ROLE if rx.search(col)), None),
                       bool(_SD_WORD.search(col)), lv[-1] if lv else "95",
                       heading_pct and not _UNIT.search(f"{row} {column}")
                       and not _NOT_A_VALUE.search(col))


# A caption that gives the table's unit once: "Held-out accuracy (%, mean ± s.d.)", "Paired differences
# in accuracy points", "in percentage points (pp)".
_CAPTION_PCT = re.compile(r"\(\s*%|%\s*\)|\bpercent(?:age)?s?\b|\bin\s+%|(?:\bin|\()\s*(?:[a-z-]+\s+)?points\b|\bpp\b", re.I)
_LEVEL_PCT = re.compile(r"\d+(?:\.\d+)?\s*\\?%\s*(?=CI\b|conf|cred|interval|bootstrap)", re.I)


# ("GSPO gains +0.090 on pass@16", "+2.5 points in format rate": the metric the change is on)
_RIGHT_AFTER = re.compile(r"\s*%?\s*(?:of\s+(?:the\s+)?\d+\s+)?(?:of\s+(?:its|the)\s+)?|"
                          r"\s*%?\s*(?:(?:pp|pts?|points?)\s+)?(?:on|in)\s+(?:the\s+)?", re.I)
_BARE_MEAN = re.compile(r"\W*(?:mean|average|avg\.?)\W*", re.I)   # a "mean" column naming no metric
_SEED_WORD = re.compile(r"seeds?|runs?|s|s?\d+")   # "s = 0" (a seed column headed by its symbol)


def _names_only(labels: str, vocab: Vocabulary, group: frozenset[str] = frozenset()) -> bool:
    """Whether a run cell's row and column labels say nothing but arm names and seeds ("| 1 | 0.623 |"
    under "GRPO"): only then is the cell the caption's or the primary metric. A label with words of its
    own ("Groups correct (of 4, mean)") names something the vocabulary does not know, and its cell is
    left to the value search, which tells a count quoted as a fraction (README failure 10). ``group``:
    words that head several columns (:func:`_group_words`), allowed too."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", labels)]
    covered = {k for i, j, _arm in longest_names(words, vocab.arms) for k in range(i, j)}
    return all(k in covered or _SEED_WORD.fullmatch(w) or w in group for k, w in enumerate(words))


def _group_words(m: Mention, vocab: Vocabulary) -> frozenset[str]:
    """Words of a spanning header over several arm columns ("Variants" over GSPO, DAPO and AERO under a
    ``\\multicolumn``): each is in two or more column labels of the header, names no arm, and the table's
    caption names the metric the cells are (README failure 15). Else none."""
    if not m.header or not vocab.metrics_in(getattr(m, "table_caption", "") or ""):
        return frozenset()
    counts: dict[str, int] = {}
    for label in m.header:
        for w in {w.lower() for w in re.findall(r"[A-Za-z]+", label)}:
            counts[w] = counts.get(w, 0) + 1
    return frozenset(w for w, k in counts.items() if k >= 2 and not vocab.arms_in(w))


@per_line   # once per table (its cells share the caption string), not per cell: a scan of the caption each
def _caption_states_pct(cap: str) -> bool:   # cost ~20 us a cell of a long caption that states no unit
    return _CAPTION_PCT.search(cap) is not None


def _caption_percent(m: Mention, lw: _LabelWords, metric: str | None, vocab: Vocabulary) -> bool:
    """Whether the table's caption puts this cell in percent: the caption states % or points, the
    cell's row and column state no unit of their own ("95% CI" is a level, not a unit), the column is
    not a count or a p, and the metric the caption names (if any) is the cell's."""
    cap = getattr(m, "table_caption", "") or ""
    if not cap or not _caption_states_pct(cap) or _NOT_A_VALUE.search(lw.col) or lw.col_role in ("p", "p_adjusted", "dz"):
        return False
    if _UNIT.search(_LEVEL_PCT.sub(" ", f"{m.row or ''} {m.column or ''}")):
        return False
    named = vocab.metrics_in(cap)
    return not named or named[0][1] == metric


def _shortened(m: Mention, vocab: Vocabulary) -> list[tuple[int, str]]:
    """The metric whose declared label the cell's row or column label shortens ("Well-formed (%)")."""
    hit = vocab.metric_shortened(m.row or "") or vocab.metric_shortened(m.column or "")
    return [(0, hit)] if hit else []


def _left_metric(m: Mention, vocab: Vocabulary) -> list[tuple[int, str]]:
    """The metric of the nearest column to the left of a metric-less statistic column ("| Solve rate |
    95% CI | p |": the CI and p are the solve rate's), over the run of such columns between them; []
    when none of them names a metric (the first column, the rows' label, never does)."""
    cols = m.header
    if m.column not in cols:
        return []
    for k in range(_column_index(m) - 1, 0, -1):
        hit = vocab.metrics_in(cols[k]) or _shortened_label(cols[k], vocab)
        if hit:
            return hit[:1]
    return []


def _column_index(m: Mention) -> int:
    """The index of ``m``'s column in its table's header: where two columns share its name ("| Acc |
    95% CI | Reward | 95% CI |"), the one whose cell in ``m``'s row holds the number."""
    cols = m.header
    first = cols.index(m.column)
    if m.column not in _repeated_columns(cols):
        return first
    return next((k for k in range(first, min(len(cols), len(m.row_cells)))
                 if cols[k] == m.column and m.text in m.row_cells[k]), first)


_REPEATED: dict[int, tuple] = {}


def _repeated_columns(cols: tuple) -> frozenset:
    """The names two or more columns of a header share, found once per header (a 20,000-column table
    asks for each of its cells: README failure 10)."""
    hit = _REPEATED.get(id(cols))
    if hit is None or hit[0] is not cols:
        if len(_REPEATED) > 64:
            _REPEATED.clear()
        seen: set = set()
        hit = _REPEATED[id(cols)] = (cols, frozenset(c for c in cols if c in seen or seen.add(c)))
    return hit[1]


def _shortened_label(text: str, vocab: Vocabulary) -> list[tuple[int, str]]:
    hit = vocab.metric_shortened(text)
    return [(0, hit)] if hit else []


def _header_contrast(m: Mention, ent, vocab: Vocabulary):
    """An arm's row in a table whose first value column, or its rows' own header ("| Objective − Base | Δ |
    95% CI |"), compares with another arm ("| | Δ solve rate vs SFT | 95% CI | p |"): its interval ends and p
    after that column are that contrast's, not the arm's own (README failure 15). A "95% CI" before a "Δ vs GRPO" column stays the arm's ("| Method | Acc | 95% CI | Δ vs GRPO |").
    Else ``ent``."""
    if ent is None or ent[0] != "arm" or len(m.header) < 2 or m.column == m.header[0] or m.column not in m.header:
        return ent
    other = _versus_arm(m.header[0], ent[1], vocab)   # the rows' header: every value column is the contrast's
    if other is None and len(m.header) >= 3 and (
            m.role in ("low", "high") or any(rx.search(m.column or "") for _, rx in _COL_ROLE[:2])):
        cols = list(m.header)
        if m.column in cols and cols.index(m.column) > 1:
            other = _versus_arm(cols[1], ent[1], vocab)
    return ("contrast", ent[1], other) if other else ent


def _versus_arm(head: str, arm: str, vocab: Vocabulary) -> str | None:
    """The arm a header compares with ("Δ solve rate vs SFT", "Objective − Base"), other than ``arm``;
    found once per header and arm (every cell of a table asks of the same header: README failure 10)."""
    memo = vocab._memo
    key = ("versus", head, arm)
    if key not in memo:
        k = _VERSUS.search(head)
        hits = vocab.arms_in(head[k.end():]) if k else []
        memo[key] = hits[0][1] if hits and hits[0][1] != arm else None
    return memo[key]


def table_reading(m: Mention, ent, vocab: Vocabulary, memo: dict | None = None) -> Reading | None:
    """A table cell read like a sentence: the metric its row or column names, the arm or run its
    row, column or heading names, the statistic its column names (mean, ± sd, CI end, p, Δ).

    ``memo`` (a dict kept for one audit, or None): the reading is made once per distinct context, the
    cell's value left out (:func:`_cell_context`), and copied to each cell that shares it: every cell
    of a column of a large table is read from the same labels (README failure 10)."""
    if memo is None:
        return _table_reading(m, ent, vocab)
    key = _cell_context(m, ent)
    if key not in memo:
        if len(memo) >= 100_000:
            memo.clear()
        memo[key] = _table_reading(m, ent, vocab)
    r = memo[key]
    if r is None:
        return None
    out = object.__new__(Reading)   # copy.copy's reduce protocol cost a fifth of a table cell's trace
    out.__dict__.update(r.__dict__)
    out.arms = list(r.arms)
    return out


def _cell_context(m: Mention, ent) -> tuple:
    """All that :func:`_table_reading` reads of a cell: its labels, heading, caption, header and role,
    and of the cell's own text only whether it writes points or "%", and a "(" before the number."""
    cell = next((c for c in m.row_cells if m.text in c), "")
    column = (m.column, _column_index(m)) if m.column in _repeated_columns(m.header) else m.column
    return (ent, m.row, column, m.scope[-1] if m.scope else "", getattr(m, "table_caption", ""), m.role, m.header,
            len(m.row_cells) > 2, bool(_CELL_PP.search(cell)), "%" in cell, "(" not in cell[:cell.find(m.text)],
            m.role in ("low", "high") and "%" not in cell and len(m.row_cells) > 2 and row_states_percent(m.row_cells))


def _table_reading(m: Mention, ent, vocab: Vocabulary) -> Reading | None:
    other, is_contrast = vocab.baseline, False
    ent = _header_contrast(m, ent, vocab)
    if ent is not None and ent[0] == "contrast":
        is_contrast = True   # "Δ vs. GRPO (pp)" row, "DAPO" column
        against = None
        for text in (m.row or "", m.column or ""):
            k = _VERSUS.search(text)
            hits = vocab.arms_in(text[k.end():]) if k else []
            if hits and hits[0][1] in ent[1:]:
                against = hits[0][1]
        first = (ent[2] if against == ent[1] else ent[1]) if against else ent[1]
        other = ent[2] if first == ent[1] else ent[1]
        ent = ("arm", first)
    if ent is None or ent[0] not in ("arm", "run"):
        return None
    heading = m.scope[-1] if m.scope else ""
    names = vocab.metrics_in(m.row or "") or vocab.metrics_in(m.column or "") or _shortened(m, vocab) \
        or vocab.metrics_in(heading)
    lw = _label_words(m.row or "", m.column or "", heading_percent(heading))
    if not names:
        if not (lw.col_role or lw.col_sd or m.role in ("low", "high") or _BARE_MEAN.fullmatch(lw.col)
                or (ent[0] == "arm" and _BARE_MEAN.fullmatch(m.row or ""))   # a "Mean" row under an arm's column
                or (ent[0] == "arm" and m.session is not None and not (m.row or "").strip())   # a session's row
                or (ent[0] == "run" and _names_only(f"{m.row or ''} {m.column or ''}", vocab, _group_words(m, vocab)))):
            return None
        # a p, Δ, SD or CI line, or a run's cell ("| seed | GRPO | DAPO |" rows "| 1 | 0.623 | 0.640 |"):
        # the metric the caption names, else the primary metric
        names = _left_metric(m, vocab) or vocab.metrics_in(getattr(m, "table_caption", "") or "")[:1] \
            or [(0, vocab.primary)]
    r = Reading(arms=[ent[1]], seed=ent[2] if ent[0] == "run" else None, metric=names[0][1])
    cell = next((c for c in m.row_cells if m.text in c), "")
    r.percent = bool(_CELL_PP.search(cell)) or lw.heading_pct   # "−7.8 pp": the cell says percentage points
    # "| DAPO | 61.97 % | 61.37 – 62.60 |": an interval's ends in the unit the row writes its mean in
    r.percent = r.percent or (m.role in ("low", "high") and "%" not in cell and ent[0] == "arm" and len(m.row_cells) > 2
                              and row_states_percent(m.row_cells))
    r.percent = r.percent or _caption_percent(m, lw, r.metric, vocab)
    r.level = lw.level
    end = m.role if m.role in ("low", "high") else _ci_end_column(m.column or "")
    if end:
        r.role = end
        r.methods = interval_kinds(m.column or "")   # a "t 95% CI" column beside a bootstrap one
    elif m.role == "pm":   # "± sd", or the interval's half-width where the header or caption says so
        r.role = "halfwidth" if HALF_WIDTH.search(f"{m.row or ''} {m.column or ''} {getattr(m, 'table_caption', '')}") \
            else "sd"
    elif lw.col_sd and "±" not in lw.col and not (_MEAN_PAREN_SD.search(lw.col) and "(" not in cell[:cell.find(m.text)]):
        r.role = "sd"   # an "SD" column; in a "mean (std)" column only the number in parentheses
    else:
        r.role = "mean"
        if lw.col_role:
            r.role, r.pair, r.arms = lw.col_role, (ent[1], other), []
    if is_contrast and r.pair is None:   # a "DAPO − GRPO" row: its estimate and interval are the contrast's
        r.role = "diff" if r.role == "mean" else r.role
        r.pair, r.arms = (ent[1], other), []
    return r


__all__ = ["paragraphs", "read_file", "seed_in", "table_reading"]
