"""The words around a report number: which arm, seed, metric and statistic it is (README failure 15).

A hand-typed card rarely pins its numbers. What says which value a number is are the words
a person writes around it: the heading above ("`gspo`, seed 37"), the sentence ("GSPO − GRPO:
+0.038, 95% CI [0.020, 0.0595]; paired t p = 0.054 (BH-adjusted 0.108)"), the row label and
the column header. This module reads those words into a ``Reading``: the arm(s), the seed, the
metric, the statistic (mean, sd, interval end, difference, p, adjusted p, MDE) and, for a
contrast written baseline first, the sign flip. ``audit.trace`` turns a reading into value ids.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from itertools import accumulate

from audit.lockview import LockView, lock_view
from audit.names import longest_names, name_prefixes
from prereg.declarations import normalise_label

# A statistic named by the words just before a number, most specific first.
_ROLE_BEFORE = (
    # first: "α = " right before the number is the level even after "the minimum detectable effect at"
    ("alpha", re.compile(r"(?:\balpha|α|\\alpha)\s*=\s*\$?\s*$", re.I)),
    # the test statistic and the paired effect size of a contrast: "t(5) = 7.72", "Cohen's d_z = 3.15"
    ("t_stat", re.compile(r"\bt\s*\(\s*(?:\d+(?:\.\d+)?)?\s*\)\s*=\s*\$?\s*$|\bt[- ]statistic\s*(?:=|of|is)?\s*$|"
                          r"\b(?:paired|welch'?s?|student'?s?)\s+t\s*=\s*\$?\s*$|(?:^|[\s(,;:])t\s*=\s*\$?\s*$|"
                          r"(?:^|[\s(,;:$`])t_\{?\d+\}?\s*=\s*\$?\s*$", re.I)),   # "$t_4 = 16.4$", reST :math:`t_2 = 5.76`
    ("dz", re.compile(r"(?:\bd\s*(?:[_~]|<sub>)?\s*\{?z\}?\s*(?:~|</sub>)?)\s*[=≈]\s*\$?\s*$", re.I)),   # "d_z ≈ 1.36"
    ("tost_p", re.compile(r"\bTOST\b[^0-9=<]{0,30}?(?:\bp\b|p-?value)?\s*(?:=|<|≤|:)?\s*$|"
                          r"\bTOST\s+p\b[^;=<]{0,50}?\b(?:is|was)\s*$", re.I)),   # "The TOST p against the ±0.01 margin is"
    ("p", re.compile(r"\b(?:unadjusted|uncorrected|nominal|raw)\b(?:\s+p\b|\s+p-?values?)?\s*(?:=|<|:|of|are|is|were|was)?\s*$",
                     re.I)),
    # ("adjusted p", not the "adjusted p" of "the unadjusted paired t-test gives p ="; "the adjusted value is 0.064")
    ("p_adjusted", re.compile(r"(?:BH|Holm|Bonferroni|FDR)[- ]?(?:adjusted|corrected)|(?<!un)adjusted\s+p\b|"
                              r"\badjusted\s+(?:value|p-?value|figure)\s+(?:is|was|becomes|of|=|:)\s*(?:only\s+|about\s+)?$|"
                              r"\b(?:BH|Holm|Bonferroni|FDR)\s+p\s*(?:=|<|:)\s*$|"   # "p = 0.060, Holm p = 0.145"
                              r"(?<!un)corrected\s+p\b|\badjusted\s*[:=]?\s*$|\bq\s*[=<]|\bp[_\s]*adj|\badj\.?\s*p\b|"
                              r"\bp_?\s*\{?\s*(?:Bonf|Holm|BH)\w*\}?\s*[=<:]\s*\$?\s*$|"   # "$p_{\text{Bonf}} = 0.0025$"
                              r"\bafter\s+(?:the\s+)?(?:BH|Holm|Bonferroni|FDR)\b[\w\s–-]{0,60}?\bp\s*[=<]\s*$|"
                              # "After the BH correction across our two comparisons it is 0.14", "After Holm (0.156 ..."
                              r"\bafter\s+(?:the\s+)?(?:BH|Holm|Bonferroni|FDR)\b[\w\s–-]{0,60}?\b(?:it|this|that)\s+"
                              r"(?:is|was|becomes|became|rises\s+to|goes\s+to)\s+(?:only\s+|about\s+)?$|"
                              r"\bafter\s+(?:the\s+)?(?:BH|Holm|Bonferroni|FDR)(?:\s+(?:correction|adjustment))?\s*\(\s*$|"
                              # "Adjusted for the 2 contrasts (BH): p = .063"
                              r"\badjusted\s+for\b[^.;]{0,60}?\bp\s*[=<]\s*$|\((?:BH|Holm|Bonferroni|FDR)\)\s*:\s*p\s*[=<]\s*$|"
                              r"\(\s*(?:BH|Holm|Bonferroni|FDR)\s*[:=]?\s*$", re.I)),   # "p = 5.6e-5 (BH 1.1e-4)"
    ("mde", re.compile(r"minimum\s+detectable\s+effect|\bMDE\b|smallest\s+(?:[\w–-]+\s+){0,4}?effect|"
                       # "the smallest gain we could detect at 80% power is", "... (80% power, exact t) is about"
                       # "the design detects a paired difference between" (a range of MDEs follows)
                       r"\bdetects\s+(?:an?\s+)?(?:paired\s+)?(?:difference|gain|effect|change)\s+(?:of|between)\s+$|"
                       r"smallest\s+(?:gain|difference|change|improvement)\s+we\s+(?:could|can)\s+(?:reliably\s+)?detect\b"
                       r"[^.;]{0,60}?\b(?:is|was)\s+(?:about\s+|roughly\s+|only\s+)?$|"
                       r"detectable\s+effect|\bdetect\s+(?:only\s+)?(?:an?\s+(?:difference|gain|effect|change)\s+of\s+)?$|"
                       # "the smallest gain this design could detect (80% power) is 2.6 points for GSPO"
                       r"\bsmallest\s+(?:[\w-]+\s+){0,2}?(?:difference|gain|effect|change|improvement)\b[^.;]{0,30}?\bdetect(?:s|ed)?\b|"
                       # "the design detects a paired difference between 0.85 (Dr. GRPO) and 1.31 (DAPO) points"
                       r"\bdetect(?:s|ed)?\s+(?:only\s+)?(?:an?\s+)?(?:[\w-]+\s+)?(?:difference|gain|effect|change)s?\s+"
                       # "could not have detected a gain below ~2 pts": the smallest detectable, from below
                       r"(?:of\s+|between\s+|as\s+small\s+as\s+|below\s+|under\s+|smaller\s+than\s+)"
                       r"(?:about\s+|roughly\s+|~\s*|≈\s*)?$",
                       re.I)),
    # "The upper end is 0.01875 before rounding" (a footnote on an interval): an interval end named in words
    # (run only where the tail holds "pper"/"ower": _END_CUES; most tails hold neither)
    ("high", re.compile(r"\bupper\s+(?:end|bound|limit|endpoint)\b[^.;=\d]{0,30}?\b(?:is|was|=|:|of)\s*$", re.I)),
    ("low", re.compile(r"\blower\s+(?:end|bound|limit|endpoint)\b[^.;=\d]{0,30}?\b(?:is|was|=|:|of)\s*$", re.I)),
    ("p", re.compile(r"\bp\s*(?:-?\s*value)?\s*(?:=|<|≤|>|≥|≈|~|of|is|was)?\s*$|\bp-?values?\b", re.I)),
    ("power", re.compile(r"achieved\s+power|power\s+(?:was|is|of)\b", re.I)),
    ("sd", re.compile(r"±\s*$|\bs\.?d\.?\s*(?:=|of|is|was|:)?\s*$|standard deviation|"
                      # "The seed-to-seed SD of the solve rate is 5.8 points for GRPO"
                      r"\bSDs?\b[^.;:=()\d]{0,60}?\b(?:is|are|was|were)\s+(?:about\s+|roughly\s+|only\s+)?$|"
                      # "GSPO's sd across seeds is the smallest (0.043 vs 0.067 for GRPO)"
                      r"\bSDs?\b[^.;:=()\d]{0,60}?\(\s*$", re.I)),
    ("diff", re.compile(r"(?:Δ|\bdelta|\bdifference|\bgain|\bgap|\bimprovement|\bdrop|\bchange)\s*(?:of|is|was|=|:)?\s*"
                        r"(?:only\s+|about\s+|roughly\s+)?$|\bby\s*(?:only\s+|about\s+)?$|"
                        r"(?:\s[−–-]\s|−|\bminus\b)\s*[A-Za-z.,() ]+?\s*(?:[:=]|\bwas\b|\bis\b)\s*$|"
                        # "GSPO gains 1.8 points", "AERO loses 0.020": a verb of change before the value
                        r"\b(?:gains|loses|adds|sheds|drops|falls|trails|improves|declines|gained|lost|added|shed|dropped|fell|trailed|"
                        r"declined)\s+(?:by\s+)?"
                        r"(?:only\s+|about\s+|roughly\s+|another\s+|a\s+further\s+)?$|"
                        r"\b(?:against|vs\.?|versus|relative\s+to|compared\s+(?:to|with)|(?:gain|improvement|drop|change)\s+over)\b"
                        r"[^:=;,]{0,40}[:=]\**\s*$|"
                        # "DAPO's advantage over GRPO is 0.0035", "the gain over GRPO was"
                        r"\b(?:advantage|gain|improvement|lead|edge|deficit|shortfall|drop)\s+(?:over|against|relative\s+to|"
                        r"vs\.?|versus)\s+[\w.\s-]{1,30}?\s(?:is|was|of|=|:)\s*(?:only\s+|about\s+)?$",
                        re.I)),
)
# Numbers that are parameters of another statistic, not values: "95% CI", "80% power", "8 seeds".
_PARAM_AFTER = re.compile(r"\s*(?:(?:/|of|out\s+of)\s*\d+\s+(?=seeds?\b|runs?\b))?"   # "3 of 4 seeds", "3/3 seeds favour GSPO"
                          r"(?:%\s*)?(?:CI\b|confidence|credible|power\b|-?fold\b|seeds?\b|arms?\b|steps?\b|"
                          r"prompts?\b|generations?\b|new tokens\b|h\b|hours?\b|equivalence\b|margin\b|"
                          r"contrasts\b|comparisons\b)", re.I)
# "(0.156 for all three)", "0.16 in each of the 3 comparisons": a contrast statistic that every contrast has.
_EVERY_AFTER = re.compile(r"\s*(?:for|in)\s+(?:(both)|(?:all|each|every)(?:\s+(?:of\s+)?(?:the\s+)?(two|three|four|five|six|\d+))?)"
                          r"(?:\s+(?:of\s+)?(?:them|contrasts?|comparisons?|arms?|gains?|cases?))?(?![\w-])", re.I)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def every_after(after: str) -> tuple[bool, int | None]:
    """Whether the words after a number say every contrast has it ("(0.156 for all three)"), and how many.

    Example:
        >>> every_after(" for all three) none"), every_after(" for GRPO)")
        ((True, 3), (False, None))
    """
    m = _EVERY_AFTER.match(after)
    if m is None:
        return False, None
    k = "two" if m.group(1) else m.group(2)
    return True, (None if k is None else _COUNT_WORDS.get(k.lower()) or int(k))


# The tests of a contrast a sentence may name, by their ids under ``contrasts.<pair>.tests``.
# (each with the word its pattern needs: the pattern runs only where :func:`folded` text holds it)
_TESTS = (("paired_bootstrap", "bootstrap", re.compile(r"\bbootstrap\s+(?:significance\s+)?(?:test\b|p\b)", re.I)),
          ("sign_flip", "sign", re.compile(r"\bsign[- ]?flip", re.I)),
          ("wilcoxon", "wilcoxon", re.compile(r"\bwilcoxon\b", re.I)),
          ("welch_t", "welch", re.compile(r"\bwelch'?s?\b", re.I)),
          ("paired_t", "paired", re.compile(r"\bpaired\s+t\b(?![- ]?interval)", re.I)))


def named_test(sentence: str, low: str | None = None) -> str | None:
    """The one test of a contrast ``sentence`` names ("The paired bootstrap test says p ≈ 0.007"), else
    None (none, or several: "paired t p = 0.07, Wilcoxon p = 0.25" leaves each p to its own words).
    ``low``: ``folded(sentence)`` where the caller has it (each pattern then runs only where its word is:
    five scans of the sentence cost ~50 us a p-value, README failure 10).

    Example:
        >>> named_test("The paired bootstrap test says p = 0.007"), named_test("paired t and Wilcoxon agree")
        ('paired_bootstrap', None)
    """
    hits = [name for name, word, rx in _TESTS if (low is None or word in low) and rx.search(sentence)]
    return hits[0] if len(hits) == 1 else None


# The kind of interval the words name: "the t-based interval", "95% t CI", "t 95% CI", "the bootstrap one".
_INTERVAL_KINDS = re.compile(r"\b(?:t[- ](?:based\s+|distribution\s+)?(?:\d+(?:\.\d+)?\s*%\s*)?(?:interval|CI|confidence)|"
                             r"t-based|student(?:'s)?[- ]t\b|(bootstrap)(?:ped)?\b)", re.I)
# A kind named right before the interval's bracket ("bootstrap 95% CI [0.049, 0.204], t interval [0.010,"),
# up to the end of the text before an interval end (its low end and separator, for the high end).
_KIND_RIGHT_BEFORE = re.compile(r"(?:\b(t)[- ](?:based\s+)?|\b(?:bootstrap(?:ped)?|percentile)\s+)"
                                r"(?:\d+(?:\.\d+)?\s*%\s*)?(?:CI|interval|confidence\s+interval)?\s*(?:[:=]\s*|(?:of|is|was)\s+)?"
                                r"[\[(]\s*(?:[-−+]?\d[\d.]*\s*%?\s*(?:,|–|to)\s*)?$", re.I)
_INTERVAL_WORDS = ("interval", "ci", "confidence", "t-based", "student", "bootstrap")   # one is in each _INTERVAL_KINDS match


def interval_kinds(text: str) -> tuple[str, ...]:
    """``("t",)`` when the interval whose ends follow ``text`` is a t interval; else ``()`` (a bootstrap
    interval, or none named: the planned interval). The kind named right before the interval's bracket
    decides ("bootstrap 95% CI [0.049, 0.204], t interval [0.010, 0.240]"); else the first kind the text
    names ("the t-based interval is wider than the bootstrap one ("), the interval the sentence is about.
    README failure 15.

    Example:
        >>> interval_kinds("the t-based interval is wider than the bootstrap one ("), interval_kinds("95% bootstrap CI")
        (('t',), ())
        >>> interval_kinds("bootstrap 95% CI [0.049, 0.204], t interval ["), interval_kinds("t 95% CI")
        (('t',), ('t',))
        >>> interval_kinds("t interval [0.010, 0.240], bootstrap 95% CI [0.049, ")
        ()
    """
    if "t" not in text.lower():
        return ()
    near = _KIND_RIGHT_BEFORE.search(text[-80:]) if text.rstrip()[-1:] in "[(," or "[" in text[-30:] else None
    if near is not None:
        return ("t",) if near.group(1) else ()
    low = folded(text)   # each match holds one of these words (a pre-test: the pattern is tried at every character)
    if low is not None and not any(w in low for w in _INTERVAL_WORDS):
        return ()
    m = _INTERVAL_KINDS.search(text)
    return ("t",) if m is not None and not m.group(1) else ()


# "±" stated as an interval's half-width, in a column header, a table's caption or a sentence: "mean ± 95% CI",
# "± is the half-width of the 95% t interval", "(± = 95% CI)". A "±" number is then that half-width, not an SD.
HALF_WIDTH = re.compile(r"\bhalf[- ]?widths?\b|±\s*(?:[=:]\s*|is\s+)?(?:the\s+)?\d+(?:\.\d+)?\s*%\s*"
                        r"(?:t\s+|bootstrap\s+|percentile\s+)?(?:CI\b|confidence\b|interval\b)", re.I)
# A number the words make a claim about, not a value: "within about 1 point" (checked by audit.claims).
CLAIM_BEFORE = re.compile(r"\bwithin\s+(?:about\s+|roughly\s+|around\s+|~\s*)?(?:±\s*)?$", re.I)
# "pts" only after a number with decimals ("+0.84 pts"): "±1 pt", "~2 pts" are rough sizes, not values
_PP_AFTER = re.compile(r"\s*(?:pp\b|percentage points?\b|(?:accuracy\s+)?-?points?\b)", re.I)   # "the 1.9-point gain", "by 2.43 accuracy points"
_PTS_AFTER = re.compile(r"\s*pts?\b", re.I)
_SEED_WORD = re.compile(r"\bseed\s*\(\s*(\d+)\s*\)|\bseeds?\s*[:=]?\s*(\d+)\b(?![.,]\d)|(?<![A-Za-z0-9])s(\d+)\b", re.I)
# A sentence may start lowercase when it starts with a name ("... unadjusted). pass@16 barely moves").
# A sentence ends at a mark and the spaces after it (group 1: where the next sentence is looked for);
# the mark is matched, not looked behind for, so that a fast search finds the marks (README failure 10).
_SENTENCE_END = re.compile(r"[.!?;]((?:\*\*|\*|_)?\s+(?=[A-Z*_`(\[]|[a-z][\w-]*@\d))")


@dataclass(frozen=True)
class Vocabulary:
    """The study's names: arm and metric display names folded by ``normalise_label``."""

    arms: dict[str, str]          # folded display name -> arm
    metrics: dict[str, str]       # folded display name -> metric
    baseline: str
    primary: str
    counts: tuple[str, ...] = ()   # count metrics with a declared maximum ("groups_correct": 0-4): what "2.51 of 4" measures
    labels: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (metric, a declared label's words): what a shortened label may stand for
    fractions: tuple[str, ...] = ()   # metrics declared as fractions: a bare 56.8 after percents in its paragraph is 56.8%
    seeds: tuple[int, ...] = ()       # the locked seeds, in order: "GRPO 70.13 · 70.13 · …" lists one value a seed
    pairs: frozenset = frozenset()    # the declared contrasts (arm, baseline): a pair of arms no contrast has is no contrast

    # Per-audit memo of name look-ups: a long sentence is read once per number that sits in it, and a
    # 30,000-number line must not be re-scanned 30,000 times (README failure 10: no shape may take minutes).
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def arms_in(self, text: str) -> list[tuple[int, str]]:
        """(position, arm) for every arm named in ``text``, in written order, longest name first.

        Args:
            text: a sentence, clause, cell or header.
        Returns:
            (offset of the name's first word, arm), left to right (:func:`audit.names.longest_names`).
        Example:
            >>> Vocabulary({"drgrpo": "dr_grpo"}, {}, "", "").arms_in("Dr. GRPO won")
            [(0, 'dr_grpo')]
        """
        return self._lookup("arms", text)

    def metrics_in(self, text: str) -> list[tuple[int, str]]:
        """(position, metric) for every metric named in ``text`` (as :meth:`arms_in`)."""
        return self._lookup("metrics", text)

    def metric_shortened(self, label: str) -> str | None:
        """The one metric whose declared label ``label`` shortens: a table header "Well-formed (%)" for
        the declared "Well-formed answers (%)" (README failure 15: people shorten labels in a table).

        The label's words, its parentheses (a unit, a range) and statistic words ("mean", "sd") left
        out, must be some of one declared label's words in their order, fewer than all, with a word of
        four letters or more among them, and no other metric's label may hold them, nor any arm's
        name: an ambiguous or generic shortening names nothing.

        Args:
            label: a table's row or column label (a cell's whole header).
        Returns:
            the metric, or None.
        Example:
            >>> v = Vocabulary({}, {}, "", "", labels=(("format_pct", ("well", "formed", "answers")),))
            >>> v.metric_shortened("Well-formed (%)"), v.metric_shortened("Formed well")
            ('format_pct', None)
        """
        words = [w for w in _WORD.findall(_PARENS.sub(" ", label).lower()) if w not in _STAT_WORDS]
        if not words or max(map(len, words)) < 4 or self.arms_in(label) or self.metrics_in(label):
            return None
        hits = {m for m, lw in self.labels if len(words) < len(lw) and _in_order(words, lw)}
        return hits.pop() if len(hits) == 1 else None

    def _prefixes(self, which: str) -> frozenset[str]:
        pre = self._memo.get(("prefixes", which))
        if pre is None:
            pre = self._memo[("prefixes", which)] = name_prefixes(self.arms if which == "arms" else self.metrics)
        return pre

    def _lookup(self, which: str, text: str) -> list[tuple[int, str]]:
        memo = self._memo
        hit = memo.get((which, text))
        if hit is None:
            names = self.arms if which == "arms" else self.metrics
            pre = self._prefixes(which)
            if len(memo) > _MEMO_TEXTS:     # bounded: keep the prefix tables, drop the texts
                for k in [k for k in memo if k[0] != "prefixes"]:
                    del memo[k]
            hit = memo[(which, text)] = _names_in(text, names, pre)
        return list(hit)

    def remember(self, which: str, text: str, hits: list[tuple[int, str]]) -> None:
        """Keep ``hits`` (found by a :class:`TextNames`) as the answer for ``text``: audit.claims looks
        the prose reader's sentences up again."""
        if len(self._memo) <= _MEMO_TEXTS:
            self._memo[(which, text)] = list(hits)


# Texts the name memo keeps before it starts over: a sentence is looked up by the prose reader and again
# by audit.claims, with every clause between its numbers in between; 4,096 dropped them before the
# second look. The texts are slices of the report (at most a few times its size in all).
_MEMO_TEXTS = 1 << 17
_PARENS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
# Words that say which statistic of a metric a column holds, or join words, never which metric.
_STAT_WORDS = frozenset("mean avg average median sd std stdev se ci min max total overall final best "
                        "per seed seeds run runs n k of the a an in at on and or over under with without "
                        "from for by to after before during".split())


def _in_order(words: list[str], label: tuple[str, ...]) -> bool:
    """Whether ``words`` are some of ``label``'s words, in the same order."""
    it = iter(label)
    return all(w in it for w in words)
_WORD = re.compile(r"[A-Za-z0-9]+")
_WORD_SPLIT = re.compile(r"([A-Za-z0-9]+)")


def _names_in(text: str, names: dict[str, str], prefixes: frozenset[str] | None = None) -> list[tuple[int, str]]:
    """(position, name) of each declared name in ``text``, the longest first (:mod:`audit.names`).

    Words are ASCII letter and digit runs, so their fold (``normalise_label``) is ``str.lower``: each
    word is folded once, however many names are looked up in it. One split gives the words and the
    gaps between them; a word's position is the length of everything before it."""
    parts = _WORD_SPLIT.split(text.lower() if text.isascii() else text)   # [gap, word, gap, word, ..., gap]
    folded = parts[1::2] if text.isascii() else [w.lower() for w in parts[1::2]]
    if prefixes is not None and not any(w in prefixes for w in folded):
        return []   # no word starts a name (most texts): no positions needed
    hits = longest_names(folded, names, prefixes)
    if not hits:
        return []
    ends = list(accumulate(map(len, parts)))   # ends[2 * i] is where word i starts
    return [(ends[2 * i], name) for i, _j, name in hits]


# The only non-ASCII characters a case-insensitive pattern matches to an ASCII letter (İ ı ſ K, found by
# matching [a-z] with re.I against every code point; tests/test_audit_fast_paths.py checks the list).
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def folded(text: str) -> str | None:
    """``text.lower()`` where a literal word in it is an exact pre-test for a case-insensitive pattern
    that needs that word (no character of ``text`` folds to an ASCII letter, and the fold keeps every
    offset); else None (then run the pattern).

    Example:
        >>> folded("LoRA (r = 16)"), folded("ſeed 3")
        ('lora (r = 16)', None)
    """
    if text.isascii():
        return text.lower()
    if _FOLDS_TO_ASCII.search(text):
        return None
    low = text.lower()
    return low if len(low) == len(text) else None


class TextNames:
    """The words of one text (a paragraph), split and folded once: the arms and metrics named in any
    slice of it, as :meth:`Vocabulary.arms_in` of the slice would find them.

    The prose reader asks for the names in the clause before each number, the 30 characters after it
    and its sentence; splitting each of those slices anew cost ~15 us a number (README failure 10:
    a 5 MB report holds 250,000 numbers). Here a slice is a range of the text's words found by
    bisection, plus the cut-off head or tail of a word the slice cuts through, and only the words
    that start some name (a few) are extended into names.

    Example:
        >>> v = Vocabulary({"drgrpo": "dr_grpo", "grpo": "grpo"}, {}, "", "")
        >>> TextNames("Dr. GRPO beats GRPO", v).arms(4, 19)
        [(0, 'grpo'), (11, 'grpo')]
    """

    def __init__(self, text: str, vocab: Vocabulary):
        self.text, self.vocab = text, vocab
        ascii_ = text.isascii()
        self.low = folded(text)
        parts = _WORD_SPLIT.split(self.low if ascii_ else text)   # [gap, word, gap, word, ..., gap]
        cum = list(accumulate(map(len, parts)))
        self.starts, self.ends = cum[0::2][:-1], cum[1::2]
        self.words = parts[1::2] if ascii_ else [w.lower() for w in parts[1::2]]
        self._arms = self._metrics = None   # (prefixes, names, longest name, words that start one)

    def _table(self, which: str):
        pre = self.vocab._prefixes(which)
        names = self.vocab.arms if which == "arms" else self.vocab.metrics
        return pre, names, max(map(len, names), default=0), [i for i, w in enumerate(self.words) if w in pre]

    def may_hold(self, word: str, a: int = 0, b: int | None = None) -> bool:
        """False only when ``text[a:b]`` surely holds no case-insensitive match of ``word`` (lower case
        ASCII): the cheap pre-test before a pattern that needs that word (:func:`folded`)."""
        return self.low is None or self.low.find(word, a, len(self.low) if b is None else b) >= 0

    def arms(self, a: int, b: int) -> list[tuple[int, str]]:
        """``vocab.arms_in(text[a:b])``."""
        if self._arms is None:
            self._arms = self._table("arms")
        return self._names(self._arms, a, b)

    def metrics(self, a: int, b: int) -> list[tuple[int, str]]:
        """``vocab.metrics_in(text[a:b])``."""
        if self._metrics is None:
            self._metrics = self._table("metrics")
        return self._names(self._metrics, a, b)

    def _names(self, table, a: int, b: int) -> list[tuple[int, str]]:
        pre, names, longest, cands = table
        b = min(b, len(self.text))
        if b <= a or not names:
            return []
        starts, ends, words = self.starts, self.ends, self.words
        i0 = bisect.bisect_left(starts, a)       # words i0..i1-1 start inside the slice
        i1 = bisect.bisect_left(starts, b)
        head = self.text[a:min(ends[i0 - 1], b)].lower() if i0 and ends[i0 - 1] > a else ""
        tail = ""
        if i1 > i0 and ends[i1 - 1] > b:       # the slice ends inside its last word: that word's head
            i1 -= 1
            tail = self.text[starts[i1]:b].lower()
        c0, c1 = bisect.bisect_left(cands, i0), bisect.bisect_left(cands, i1)
        if c0 == c1 and head not in pre and tail not in pre:
            return []   # no word of the slice starts a name (most slices)
        # the slice's words are [head] + words[i0:i1] + [tail]; k indexes them (word k of the slice is
        # head, words[k - h + i0] or tail: written out inline, the innermost loop of the prose reader)
        h = 1 if head else 0
        m = h + i1 - i0 + (1 if tail else 0)
        firsts = ([0] if head in pre else []) + [k - i0 + h for k in cands[c0:c1]] + ([m - 1] if tail and tail in pre else [])
        out, nxt = [], 0
        shift = i0 - h
        for i in firsts:
            if i < nxt:
                continue   # inside the name just taken
            cat, best = "", None
            for j in range(i, m):
                cat += head if j < h else words[j + shift] if j + shift < i1 else tail
                if len(cat) > longest or cat not in pre:
                    break
                if cat in names:
                    best = (j + 1, names[cat])
            if best is not None:
                out.append((0 if i < h else starts[i + shift] - a, best[1]))
                nxt = best[0]
        return out


_METRIC_WORDS = {"heldout_accuracy": ("accuracy", "acc", "heldout accuracy", "test accuracy", "solved",
                                      "problems solved"),
                 "heldout_correct": ("items correct", "problems correct", "puzzles correct", "held-out correct",
                                     "correct items", "correct answers"),
                 "zvf_mean": ("zvf", "zero variance fraction", "mean zvf", "fraction of zero variance groups",
                              "zero variance groups"),
                 "gu_mean": ("gu", "gradient utilisation", "gradient utilization", "group utilisation", "group utilization"),
                 "reward_last10": ("reward last 10 steps", "last 10 steps", "reward last 10", "last ten steps",
                                   "final 10 steps", "final ten steps"),
                 "reward_first5": ("reward first 5 steps", "first 5 steps")}


# The id of a percent or fraction metric with its unit suffix dropped, and a word for a share after it:
# "format rate", "format share" name ``format_pct`` ("the format rate of GRPO (91.4%)").
_UNIT_SUFFIX = re.compile(r"_(?:pct|percent|frac|fraction|rate|share)$")
_RATE_WORDS = ("rate", "share", "percentage", "fraction")


def _rate_names(name: str, unit: str | None) -> tuple[str, ...]:
    """"format rate", "format share", ... for a percent or fraction metric ``format_pct``; () for others."""
    stem = _UNIT_SUFFIX.sub("", name)
    if unit not in ("percent", "fraction") or stem == name or not stem:
        return ()
    return (*(f"{stem} {w}" for w in _RATE_WORDS), *_gerund(stem))


def _gerund(stem: str) -> tuple[str, ...]:
    """The "-ing" noun of a one-word metric stem, as English spells it: "formatting" for ``format_pct``
    ("Formatting got worse ..."), "solving" for ``solve_rate``; () for a stem of several words or under
    five letters (too short to be read as a name)."""
    if not stem.isalpha() or len(stem) < 5:
        return ()
    if stem.endswith("e") and not stem.endswith("ee"):
        return (stem[:-1] + "ing",)
    if stem[-1] not in "aeiouwxy" and stem[-2] in "aeiou" and stem[-3] not in "aeiou":
        return (stem + stem[-1] + "ing",)   # a stressed final consonant after one vowel is doubled
    return (stem + "ing",)


def _noun_forms(labels) -> tuple[str, ...]:
    """"well-formedness" for a declared "Well-formed answers (%)": the quality a label's participle and its
    words before it name, without the noun after it (a sentence says "Well-formedness is slightly lower")."""
    out = []
    for text in labels:
        words = _WORD.findall(_PARENS.sub(" ", text).lower())
        if len(words) >= 2 and len(words[-2]) > 4 and words[-2].endswith("ed"):
            out.append(" ".join(words[:-1]) + "ness")
    return tuple(out)


def vocabulary(lock: LockView | dict) -> Vocabulary:
    """Arm and metric names of the lock (its :class:`audit.lockview.LockView`, or the
    preregistration), with their declared labels (and a few defaults)."""
    view = lock if isinstance(lock, LockView) else lock_view(lock)
    arms: dict[str, str] = {}
    for name, d in view.arm_decls.items():
        for text in (name, *d.labels, name.replace("_", " ")):
            arms.setdefault(normalise_label(text), name)
    if view.baseline:   # "2 points below the 63.2% baseline", "The baseline reaches 0.632": the baseline arm
        arms.setdefault("baseline", view.baseline)
    metrics: dict[str, str] = {}
    decls = view.metric_decls
    primary = view.primary_metric
    for name in ("accuracy", "acc"):   # a bare "accuracy" is the primary metric's
        metrics[name] = primary
    for name, d in sorted(decls.items(), key=lambda kv: not kv[1].declared):
        for text in (name, *d.labels, *_METRIC_WORDS.get(name, ()), *_rate_names(name, d.unit),
                     *_noun_forms(d.labels)):
            metrics.setdefault(normalise_label(text), name)
    labels = tuple((name, tuple(_WORD.findall(_PARENS.sub(" ", text).lower())))
                   for name, d in decls.items() for text in d.labels)
    return Vocabulary(arms, metrics, view.baseline, primary, tuple(n for n, d in decls.items() if d.unit == "count" and d.max),
                      labels, tuple(n for n, d in decls.items() if d.unit == "fraction"),
                      tuple(s for s in view.seeds if isinstance(s, int) and not isinstance(s, bool)),
                      view.pairs)


@dataclass
class Reading:
    """What the words around one number say it is."""

    arms: list[str] = field(default_factory=list)   # candidate arms (one: decisive)
    pair: tuple[str, str] | None = None              # a contrast as written (first minus second)
    seed: int | None = None
    metric: str | None = None
    role: str | None = None       # mean | sd | halfwidth | low | high | diff | p | p_adjusted | mde | power | tost_p | alpha | t_stat | dz | margin
    level: str = "95"
    percent: bool = False         # "pp", "points", a "(%)" row: a difference or value on the percent scale
    param: bool = False           # "95% CI", "80% power", "8 seeds": a parameter, not a value
    negate: bool = False          # "10.7 points less than SFT": the magnitude of a negative difference
    contrast: bool = False        # a contrast's statistic (or its interval end), even where no pair is named
    carried: bool = False         # the metric is an earlier sentence's: this sentence names none
    count: bool = False           # a whole number the words make a count of items ("out of 60:" over a list)
    code_key: bool = False        # a number in a YAML/JSON code block, read by its keys (audit.code_data)
    every: tuple[int | None, str] | None = None   # "(0.156 for all three)": (how many, baseline): each contrast's statistic
    test: str | None = None       # the one test its sentence names ("the paired bootstrap test says p ≈ ..."): a p is that test's
    methods: tuple[str, ...] = ()  # ("t",): its sentence is about a t interval ("the t-based interval ... [0.049, 0.298]")


# "LoRA adapter (r = 16, alpha = 32)": the adapter's locked settings (lock.training.lora_r, lora_alpha,
# lora_dropout), read only in a sentence that names LoRA ("alpha = 0.05" elsewhere is the test's level).
_LORA = re.compile(r"\blora\b", re.I)
_LORA_SETTING = re.compile(r"(?:\blora[\s_-]*)?\b(r|rank|alpha|α|dropout)\s*[=:]\s*\$?\s*$", re.I)
LOCK_ROLES = ("lora_r", "lora_alpha", "lora_dropout")


def lora_role(before: str, lora_named: bool) -> str | None:
    """``lora_r`` | ``lora_alpha`` | ``lora_dropout`` when ``before`` (the words up to a number) ends in
    "r =", "rank:", "alpha =" or "dropout =" in a sentence that names LoRA; else None.

    Args:
        before: the words just before the number.
        lora_named: whether its sentence names LoRA (:func:`names_lora`, found once per sentence:
            a sentence may hold 30,000 numbers).
    Returns:
        The role naming the locked LoRA setting, or None.
    Example:
        >>> lora_role("LoRA adapter (r = 16, alpha = ", names_lora("LoRA adapter (r = 16, alpha = 32)"))
        'lora_alpha'
    """
    m = _LORA_SETTING.search(before[-40:]) if lora_named else None
    if m is None:
        return None
    w = m.group(1).lower()
    return {"rank": "lora_r", "α": "lora_alpha"}.get(w, f"lora_{w}")


def names_lora(sentence: str) -> bool:
    """Whether a sentence names LoRA (its "r =", "alpha =" are then the adapter's settings)."""
    return _LORA.search(sentence) is not None


def role_before(text: str) -> str | None:
    """The statistic the words just before a number name (``text`` ends where the number starts)."""
    return _role_of_tail(text[-100:])   # "the minimum detectable effect at 80% power for this comparison is 0.052"


@functools.lru_cache(maxsize=1 << 16)
def _role_of_tail(tail: str) -> str | None:
    """:func:`role_before` of the last 100 characters before a number. Memoised: the words between
    numbers repeat (", ", " (95% CI [", "; paired t p = "), and the eleven patterns cost ~60 us a
    number (README failure 10: a 5 MB report holds 250,000 numbers). Bounded: 65,536 tails of at
    most 100 characters."""
    for role, rx in _ROLE_BEFORE:
        cue = _END_CUES.get(role)
        if (cue is None or cue[0] in tail or cue[1] in tail) and rx.search(tail):
            return role
    return None


# what an interval end named in words needs ("upper end", "Lower bound"): the pattern cannot match without it
_END_CUES = {"high": ("pper", "PPER"), "low": ("ower", "OWER")}


_DIFF_AFTER = re.compile(r"\s*(?:pp\b|percentage\s+points?\b|points?\b|pts?\b)?\s*(more|less|fewer|higher|lower|better|worse|"
                         r"above|below)\b", re.I)


def diff_after(after: str) -> str | None:
    """"more"/"less" when the words after a number make it a difference ("10.7 points more than SFT")."""
    m = _DIFF_AFTER.match(after)
    return m.group(1).lower() if m else None


def is_param(after: str) -> bool:
    return bool(_PARAM_AFTER.match(after))


def is_points(after: str, decimals: int = 1) -> bool:
    return bool(_PP_AFTER.match(after)) or (decimals > 0 and bool(_PTS_AFTER.match(after)))


def matches_at(rx: re.Pattern, text: str, low: str | None, words: tuple[str, ...], places: set[int] | None = None):
    """``rx.finditer(text)`` for a pattern each match of which starts with one of ``words`` (lower-case
    ASCII, or a character that does not fold, matched case-insensitively): the pattern is tried only at
    the places ``low`` (``folded(text)``) holds one of them, found by ``str.find``, instead of at every
    character (:func:`matches_from` for several opening words: "adjust|correct|\\bBH\\b|Holm" opens with
    no one word). The same matches: a match can only start where one of the words does, the places are
    tried in order, and each match is searched from the end of the last (README failure 10: a claim's
    patterns were ~90% of the claims' cost, tried at each of a sentence's characters). ``places``: more
    offsets a match may start at (where an opening word is not a fixed string), tried too.

    Example:
        >>> rx = re.compile(r"adjust\\w*|\\bBH\\b", re.I)
        >>> [m.group(0) for m in matches_at(rx, "BH-adjusted (Adjusted)", "bh-adjusted (adjusted)", ("adjust", "bh"))]
        ['BH', 'adjusted', 'Adjusted']
    """
    if low is None:
        yield from rx.finditer(text)
        return
    places = set() if places is None else set(places)
    for word in words:
        q = low.find(word)
        while q >= 0:
            places.add(q)
            q = low.find(word, q + 1)
    pos = 0
    for q in sorted(places):
        if q < pos:
            continue
        m = rx.match(text, q)
        if m is not None:
            yield m
            pos = max(m.end(), q + 1)


def search_at(rx: re.Pattern, text: str, low: str | None, words: tuple[str, ...]) -> re.Match | None:
    """``rx.search(text)`` for a pattern each match of which starts with one of ``words`` (:func:`matches_at`)."""
    return next(matches_at(rx, text, low, words), None)


def matches_from(rx: re.Pattern, text: str, low: str | None, word: str):
    """``rx.finditer(text)`` for a pattern each match of which starts with ``word`` (lower-case ASCII,
    matched case-insensitively): the pattern is tried only where ``low`` (``folded(text)``) holds the
    word, found by ``str.find``, instead of at every character (a case-insensitive pattern that opens
    with ``\\b`` or a look-behind costs ~50-100 ns a character; README failure 10). The same matches:
    a match can only start where the word does, and each is searched from the end of the last.

    Example:
        >>> [m.group(1) for m in matches_from(re.compile(r"\\bseeds?\\s+(\\d+)", re.I), "Seed 3, seeds 4", "seed 3, seeds 4", "seed")]
        ['3', '4']
    """
    if low is None:
        yield from rx.finditer(text)
        return
    pos = 0
    while True:
        q = low.find(word, pos)
        if q < 0:
            return
        m = rx.match(text, q)
        if m is None:
            pos = q + 1
        else:
            yield m
            pos = max(m.end(), q + 1)


def seed_mentions(text: str, low: str | None = None) -> list[tuple[int, int]]:
    """(end offset, seed) of every seed named in ``text``, in written order.

    Args:
        text: a sentence.
        low: ``folded(text)`` when the caller has it (the scan then starts only at an "s").
    Returns:
        One pair per "seed 11", "seeds: 3", "seed (7)", "s37" mention.
    Example:
        >>> seed_mentions("GRPO seed 11 scored 0.632 and seed 23 0.628")
        [(12, 11), (37, 23)]
    """
    found = _SEED_WORD.finditer(text) if low is None else matches_from(_SEED_WORD, text, low, "s")
    return [(m.end(), int(next(g for g in m.groups() if g))) for m in found]


def seed_last(text: str) -> int | None:
    """The seed named last in ``text`` ("GRPO seed 11 scored 0.632 and seed 23 0.628": 23 before 0.628)."""
    found = seed_mentions(text)
    return found[-1][1] if found else None


def seed_in(text: str) -> int | None:
    m = _SEED_WORD.search(text)
    if not m:
        return None
    return int(next(g for g in m.groups() if g))


_ABBREV = re.compile(r"(?:\b(?:Dr|Mr|Ms|Fig|Figs|Eq|Eqs|Tab|Sec|vs|cf|approx|al|e\.g|i\.e|resp|No)\.)\W*$", re.I)


def sentences(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a paragraph ("Dr. GRPO", "e.g.", "et al." end none)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(paragraph):
        if _ABBREV.search(paragraph[max(start, m.start(1) - 8):m.start(1)]):
            continue
        out.append((start, m.start(1)))
        start = m.end()
    out.append((start, len(paragraph)))
    return out
