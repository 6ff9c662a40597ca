"""Claims a report makes in words and labels, checked against the lock and the analysis (README failure 15).

Numbers are not the only thing a hand-typed card can get wrong. This module checks what the
words say where the analysis can decide it:

- seeds: a heading or header cell naming a run ("`gspo`, seed 37", "| seed 3 |") and a seed
  list ("seeds 11, 23, 37 and 53", "8 seeds (11, 23, ...)") name only registered seeds;
- label facts: "n=500", "(of 1,319)", "the same 500 held-out problems" equal the locked n;
- verdict words written without a pin (SURVIVES, DISAPPEARS, ...) equal the analysis' verdict
  of the contrast the sentence (or its paragraph) is about;
- "significant" / "not significant" / "no difference" agree with the planned test (adjusted
  when the sentence says so);
- "X ... lower/higher than ... Y" agrees with the two numbers written;
- "within about N points" holds for the contrast's difference.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from audit.comparisons import (
    WITHIN,
    arm_comparisons,
    number_comparisons,
    points_claims,
    ratio_claims,
    seed_win_claims,
    within_claims,
)
from audit.lock_settings import wrong_settings
from audit.lockview import LockView, lock_view
from audit.numbers import ParsedFile, is_bibliography
from audit.prose import _LIST_ITEM, _OUT_OF_ITEMS, _versus_subject, file_paragraphs
from audit.seed_claims import per_seed_claims
from audit.session_claims import session_claims
from audit.words import Vocabulary, folded, matches_at, matches_from, search_at, sentences

# ("within 0.3pp on every seed: 2 up, 3 down": a count over the seeds, no seed named)
_SEED_ONE = re.compile(r"(?<![A-Za-z_])(?<!RNG )(?<!rng )(?<!random )(?<!bootstrap )(?<!every )(?<!each )(?<!per )(?<!any )seed\s*[=:#]?\s*(\d+)\b(?![.,]\d)"
                       r"(?!\s*(?:,|and)\s*\d)", re.I)
# ("**Seeds:** 100, 200 and 300", a reST field ":Seeds: 11, 12 and 13": a label's colon before the list)
_SEED_LIST = re.compile(r"\bseeds?\b(?:[*_]{0,2}\s*:\s*[*_]{0,2}|[^.;:\d]{0,40}?:?)[(\[]?\s*((?:\d+(?:,\s+|\s+and\s+|\s*&\s*|,\s*and\s+))+\d+(?!\d|[.,]\d)"
                        r"(?:\s*,?\s*(?:\.\.\.|…))?)", re.I)
# "seeds 1 to 6", "seeds 100–500", "six seeds each (1 to 6)", "seeds ($s \\in \\{1, \\dots, 8\\}$)": the first
# and the last seed
_SEED_RANGE = re.compile(r"\bseeds\b(?:\s+|[^.;:\d]{0,20}?[{(\[]\s*)(\d+)\s*(?:to|through|[–—-]|,\s*(?:\.\.\.|…|\\l?dots)?\s*,)"
                         r"\s*(\d+)\b(?![.,]\d)", re.I)
_N_FACT = re.compile(r"\bn\s*=\s*(\d[\d,]*)\b(?!\s*(?:seeds?|runs?|arms?|pairs?|adapters?)\b)|\(\s*(?:(?:fraction|share|proportion|percent(?:age)?|%)\s+)?of\s+(\d[\d,]*)\s*\)|(?<![\d.,])(\d[\d,]*)(?:\s+(?:(?:held[- ]out|test|[A-Z][A-Za-z0-9-]*)"
                     r"\s+){0,3}(?:problems|items|questions|puzzles|examples|boards)|\s*-\s*(?:problem|item|question|puzzle|"
                     r"example)s?|-q(?=\s+(?:held[- ]?out|test)\b))\b|\bout\s+of\s+(\d[\d,]*)\b(?![.,]\d)", re.I)
# "by 12, 2 and 4 problems", "by 3 problems": a difference counted in problems
_BY_COUNT = re.compile(r"\bby\s+(?:\d[\d,]*(?:,\s*(?:and\s+)?|\s+and\s+))*$")
# "solved 72 problems", "answered only 58 questions": a count of problems solved, not the held-out n
_SOLVED_BEFORE = re.compile(r"\b(?:solved|solves|solving|answered|answers|got)\s+(?:only\s+|just\s+|all\s+but\s+)?$", re.I)
_EACH_AFTER = re.compile(r"\s+each\b", re.I)   # "(67 problems each)" after a tie: what each arm solved
_SOLVED_WORDS = re.compile(r"\b(?:tied?|ties|solved|solves|correct|right)\b", re.I)
# One of them is in each statement of n without "=" or "(" (a noun after the number, or near "out of N")
_N_NOUNS = ("problem", "item", "question", "puzzle", "example", "board", "-q held", "-q test")
_N_FACT_NOUNS = ("problem", "item", "question", "puzzle", "example", "board", "-q")   # in each match opening with digits
# "2,000 bootstrap resamples": the locked number of resamples.
# ("2\u2009000 resamples": a thin space between thousands; a paragraph's spaces arrive as plain spaces)
_RESAMPLES = re.compile(r"(?<![\d.,\u2009\u202f])(\d{1,3}(?:[ \u2009\u202f]\d{3})+|\d[\d,]*(?:\.\d+)?k?)\s+"
                        r"(?:(?:paired|percentile|stratified)\s+)?(?:bootstrap\s+)?(?:resamples|bootstrap\s+samples|"
                        r"bootstrap\s+replicates)\b", re.I)
_HELDOUT_WORDS = re.compile(r"held[- ]?out|\btest\b|split|items|problems|questions|puzzles|accuracy|GSM8K|"
                            r"\beval", re.I)
_SIGNIF = re.compile(r"\b(not\s+(?:statistically\s+)?significant(?:ly)?|non-?significant(?:ly)?|insignificant|"
                     r"(?:statistically\s+)?significant(?:ly)?|no\s+(?:(?:statistically\s+)?significant\s+)?"
                     r"difference)\b", re.I)
_DIGIT = re.compile(r"\d")
_UNADJUSTED = re.compile(r"\bunadjusted|\buncorrected|\b(?:before|without|prior\s+to)\s+(?:any\s+)?(?:multiplicity\s+)?"
                         r"(?:adjustment|correction)|\bnominal(?:ly)?\b|\braw\s+p\b", re.I)
_ADJUSTED = re.compile(r"adjust|correct|\bBH\b|Holm|Bonferroni|multiplicity|family", re.I)
# The words each match of a pattern starts with (audit.words.matches_at: the pattern is tried only where they are)
_UNADJUSTED_WORDS = ("unadjusted", "uncorrected", "before", "without", "prior", "nominal", "raw")
_ADJUSTED_WORDS = ("adjust", "correct", "bh", "holm", "bonferroni", "multiplicity", "family")
_SIGNIF_WORDS = ("no", "insignificant", "statistically", "significant")   # "not", "non-" start with "no"



# What may stand between a significance word and the mention of adjustment that qualifies it: "significant
# unadjusted", "significant (after Holm", "significant only before any correction"
_NEAR_GAP = re.compile(r"[\s(,:–-]*(?:only\s+|even\s+|also\s+)?(?:(?:after|before|without|with|under|once|when|prior\s+to)\s+)?"
                       r"(?:the\s+|a\s+|any\s+)?")


def adjusted_at(sent: str, pos: int, end: int | None = None) -> bool:
    """Whether a significance word at ``pos:end`` of ``sent`` speaks of the adjusted p: a mention of
    adjustment right after it decides ("significant unadjusted (p = 0.049)", "significant after Holm"),
    else the nearest before it ("p = 0.032 unadjusted, but after Holm the adjusted value is 0.064, so the
    gain is not significant" is the adjusted p's), else the first after it ("significantly ahead of the base
    model, yet after Holm ..."); no mention, the unadjusted p.

    Example:
        >>> adjusted_at("unadjusted p = 0.03, but after Holm it is not significant", 40)
        True
        >>> adjusted_at("Neither is significant after Holm, though one is significant unadjusted", 49, 60)
        False
    """
    kept = _adjust_marks(sent)
    near = [(start, adj) for start, adj in kept if end is not None and start >= end]
    if near and _NEAR_GAP.fullmatch(sent, end, near[0][0]):
        return near[0][1]
    before = [adj for start, adj in kept if start < pos]
    after = [adj for start, adj in kept if start >= pos]
    return before[-1] if before else bool(after and after[0])


@functools.lru_cache(maxsize=64)
def _adjust_marks(sent: str) -> tuple[tuple[int, bool], ...]:
    """(start, adjusted) of each mention of adjustment in ``sent`` (an unadjusted one covering the "adjust" it
    holds): found once per sentence, not once per significance word in it (README failure 10)."""
    low = folded(sent)
    marks = sorted([(m.start(), m.end(), False) for m in matches_at(_UNADJUSTED, sent, low, _UNADJUSTED_WORDS)]
                   + [(m.start(), m.end(), True) for m in matches_at(_ADJUSTED, sent, low, _ADJUSTED_WORDS)])
    return kept_marks(marks)


def kept_marks(marks: list[tuple[int, int, bool]]) -> tuple[tuple[int, bool], ...]:
    """Sorted (start, stop, adjusted) marks with overlaps resolved: "unadjusted" holds "adjust", so the
    unadjusted mention covers the adjusted one inside it; returns (start, adjusted) per kept mark."""
    kept, reach = [], -1
    for start, stop, adj in marks:
        if start >= reach:
            kept.append((start, adj))
            reach = stop
        elif not adj:
            kept[-1], reach = (kept[-1][0], False), max(reach, stop)
    return tuple(kept)


@dataclass(frozen=True)
class Claim:
    """One finding about words: where, what the records say, what was written, and why it is wrong."""

    location: str
    expected: str
    found: str
    message: str


@dataclass
class Tally:
    """How many claims in words the analysis decided, and the ones it cannot decide (listed, so a
    reader sees what was not checked: "GRPO's reward is higher than SFT's" with no such value)."""

    checked: int = 0
    undecided: list = dataclasses.field(default_factory=list)   # (location, words)

    def note(self) -> str:
        """One summary line for check 10's notes."""
        shown = "; ".join(f"{w} '{t}'" for w, t in self.undecided[:5])
        more = f" (+{len(self.undecided) - 5} more)" if len(self.undecided) > 5 else ""
        return (f"claims in words: {self.checked} checked against the analysis, {len(self.undecided)} it cannot "
                f"decide" + (f": {shown}{more}" if shown else ""))


@dataclass(frozen=True)
class Facts:
    """What the lock and the analysis decide: seeds, n, verdicts, significance per contrast."""

    seeds: tuple[int, ...]
    heldout_n: float | None
    verdict_names: frozenset
    verdicts: dict        # contrast id -> verdict
    values: dict          # value id -> number
    alpha: float
    n_arms: int = 0
    run_seeds: frozenset = frozenset()
    secondary: dict = dataclasses.field(default_factory=dict)   # "<contrast>.<metric>" -> verdict
    primary: str = "heldout_accuracy"
    units: dict = dataclasses.field(default_factory=dict)    # metric -> fraction | percent | count | real
    higher: dict = dataclasses.field(default_factory=dict)   # metric -> higher is better
    count_max: frozenset = frozenset()   # declared maxima of count metrics: "Groups correct (of 4)" is a scale
    resamples: int | None = None         # lock.analysis.resamples
    exploratory: frozenset = frozenset()   # contrasts the analysis marks not confirmatory (outside "each registered verdict")
    sessions: tuple = ()                 # the analysis' evaluation sessions ("two evaluation sessions")
    lock: dict = dataclasses.field(default_factory=dict)   # the preregistration ("LoRA rank 8", "RNG seed 7")
    steps_recorded: bool = False         # the runs recorded their steps ("30 steps" is checked against them)


def facts_of(lock: LockView | dict, analysis: dict, run_seeds=()) -> Facts:
    """What the lock (its :class:`audit.lockview.LockView`, or the preregistration) and the analysis
    decide about claims in words: seeds, n, verdict names and verdicts, alpha, units, directions."""
    view = lock if isinstance(lock, LockView) else lock_view(lock)
    names = set(view.verdict_names)
    verdicts = {k: v.get("verdict") for k, v in ((analysis.get("verdicts") or {}).get("contrasts") or {}).items()
                if isinstance(v, dict)}
    secondary = {k: v.get("verdict") for k, v in ((analysis.get("verdicts") or {}).get("secondary") or {}).items()
                 if isinstance(v, dict)}
    names |= set(verdicts.values()) | set(secondary.values())
    values = {k: v.get("value") for k, v in (analysis.get("values") or {}).items() if isinstance(v, dict)}
    units, higher = _metric_facts(view, analysis)
    return Facts(tuple(s for s in view.seeds if isinstance(s, int)),
                 view.heldout_n, frozenset(n for n in names if n), verdicts,
                 values, float(view.alpha), len(view.arms), frozenset(run_seeds),
                 secondary, view.primary_metric, units, higher,
                 view.declared_max, view.resamples,
                 frozenset(k for k, v in ((analysis.get("verdicts") or {}).get("contrasts") or {}).items()
                           if isinstance(v, dict) and v.get("confirmatory") is False),
                 tuple(analysis.get("sessions") or ()), dict(view.raw),
                 any(k.startswith("arms.") and k.endswith(".steps") for k in values))


def _metric_facts(view: LockView, analysis: dict) -> tuple[dict, dict]:
    """Each metric's unit (the analysis' own ``metric_units`` first) and declared direction."""
    decls = view.metric_decls
    units = {k: d.unit for k, d in decls.items()}
    units.update({k: v for k, v in (analysis.get("metric_units") or {}).items() if isinstance(v, str)})
    return units, {k: d.higher_is_better for k, d in decls.items()}


def _line_of(offs: list[int], nums: list[int], pos: int) -> int:
    """The line of offset ``pos`` of a paragraph whose lines start at ``offs`` (ascending)."""
    return nums[max(bisect.bisect_right(offs, pos) - 1, 0)]


def check_file(f: ParsedFile, vocab: Vocabulary, facts: Facts, tally: Tally | None = None) -> list[Claim]:
    """Every contradicted claim of one report file.

    Args:
        f: the parsed report file. vocab: the study's names. facts: what the lock and analysis decide.
        tally: counts the claims decided and lists those the analysis cannot decide (optional).
    Returns:
        One :class:`Claim` per contradicted claim.
    """
    tally = tally if tally is not None else Tally()
    paras = paragraph_claims(f, vocab, facts, tally)   # first: the tally lists the paragraphs' claims first
    head, tail = file_claims(f, vocab, facts, tally)
    return merged_claims(head, paras, tail)


def report_facts(ctx, vocab: Vocabulary | None) -> Facts | None:
    """What the lock and analysis of an audit decide, or None when its claims cannot be read (no
    readable preregistration, or no lock).

    Args:
        ctx: the audit context (:class:`audit.context.AuditContext`). vocab: the study's names, or None.
    Returns:
        :class:`Facts` or None.
    """
    if vocab is None or not ctx.lock_view.present:
        return None
    return facts_of(ctx.lock_view, ctx.analysis, {r.manifest.get("seed") for r in ctx.runs})


def report_claims(files: list[ParsedFile], vocab: Vocabulary | None, facts: Facts | None):
    """Every contradicted claim of a report's files, in order, with the tally, or None without facts.

    Args:
        files: the parsed report files. vocab: the study's names. facts: :func:`report_facts`.
    Returns:
        ``(claims, tally)`` or None.
    """
    if facts is None or vocab is None:
        return None
    tally = Tally()
    return [c for f in files for c in check_file(f, vocab, facts, tally)], tally


def merged_claims(head: list[Claim], paras: list[Claim], tail: list[Claim]) -> list[Claim]:
    """A file's claims in the order :func:`check_file` gives them, each once (a raw HTML table row is
    read as prose too, and its header cells as a parsed table's: one finding per claim, the first
    kept where two readings word the same finding at the same place)."""
    seen: dict[tuple[str, str, str], Claim] = {}
    for c in [*head, *paras, *tail]:
        seen.setdefault((c.location, c.found, c.message), c)
    return list(seen.values())


def file_claims(f: ParsedFile, vocab: Vocabulary, facts: Facts, tally: Tally) -> tuple[list[Claim], list[Claim]]:
    """The claims read over the whole file rather than paragraph by paragraph: (those listed before the
    paragraphs' claims, those listed after): seed labels; headings, n labels, verdict tables, marks."""
    head: list[Claim] = []
    tail: list[Claim] = []
    if is_bibliography(f.path):
        return head, tail   # a bibliography names references: no claim of the report (audit.statuses "citation")
    _seed_labels(f, facts, head)
    _heading_facts(f, facts, tail)
    _n_labels_in_tables(f, facts, tail)
    _parsed_header_facts(f, facts, tail)
    _table_verdicts(f, vocab, facts, tail, tally)
    _parsed_table_verdicts(f, vocab, facts, tail, tally)
    _marker_claims(f, vocab, facts, tail, tally, _legends(f))
    return head, tail


def paragraph_claims(f: ParsedFile, vocab: Vocabulary, facts: Facts, tally: Tally,
                     lines: range | None = None) -> list[Claim]:
    """The claims of the file's prose paragraphs, each read on its own (with the pair its headings
    name); ``lines``: only the paragraphs that start there (a part of a large report, audit.report_pool)."""
    out: list[Claim] = []
    if is_bibliography(f.path):
        return out
    starts = [ln for ln, _ in getattr(f, "heading_scopes", None) or []]
    notes = _legends(f)
    paras = file_paragraphs(f)
    for k, para in enumerate(paras):
        if lines is None or para[0][0] in lines:
            _paragraph_claims(f, para, vocab, facts, out, starts, tally, notes, _lead_in(f, paras, k, vocab, starts))
    return out


def _follows(paras, k: int) -> bool:
    """Whether paragraph ``k`` is a list item typed on the line right after paragraph ``k - 1`` ends."""
    nums, text, _ = paras[k]
    return k > 0 and bool(nums) and bool(paras[k - 1][0]) and nums[0] == paras[k - 1][0][-1] + 1 \
        and _LIST_ITEM.match(text) is not None


def _lead_in(f: ParsedFile, paras, k: int, vocab: Vocabulary, starts) -> tuple | None:
    """(subject, pair, metric) a list item starts from when it sits right under a paragraph (no blank line
    between): that paragraph's at its end (":handshake: **Dr. GRPO ≈ GRPO**: ...\n- 2 up, 3 down, 2 ties"
    compares Dr. GRPO with GRPO); the items before it in the same list carry it on. Read from the texts
    alone (a part of a large report read apart, audit.report_pool, finds the same); each paragraph's end
    is found once per file (memo), so a long list costs one pass."""
    if not _follows(paras, k):
        return None
    memo = f.__dict__.get("_claim_ends")
    if memo is None or memo[0] is not paras:
        memo = f.__dict__["_claim_ends"] = (paras, {})
    ends = memo[1]
    todo = [k - 1]
    while todo[-1] not in ends and _follows(paras, todo[-1]):
        todo.append(todo[-1] - 1)   # back to a paragraph already read or the one the list sits under
    for j in reversed(todo):
        if j not in ends:
            ends[j] = _claim_end(f, paras[j], vocab, starts, ends.get(j - 1) if _follows(paras, j) else None)
    return ends[k - 1]


def _start_state(f: ParsedFile, nums, vocab: Vocabulary, starts, lead: tuple | None) -> tuple:
    """(subject, pair, metric) a paragraph starts from: a list item's lead-in (:func:`_lead_in`), else the
    pair of arms its headings name."""
    if lead is not None:
        return lead
    pair = scope_pair(f, nums[0], vocab, starts) if nums else None
    return (pair[0] if pair else None), pair, None


def _claim_end(f: ParsedFile, para, vocab: Vocabulary, starts, lead: tuple | None) -> tuple:
    """(subject, pair, metric) at the end of one paragraph, as :func:`_paragraph_claims` carries them."""
    nums, text, _ = para
    subject, pair, metric = _start_state(f, nums, vocab, starts, lead)
    for s_start, s_end in sentences(text):
        sent = text[s_start:s_end]
        arms = list(dict.fromkeys(a for _, a in vocab.arms_in(sent)))
        pair = _versus_subject(sent, arms, subject, vocab) or _sentence_pair(arms, pair, vocab)
        if sent.rstrip(" *_)\"'”’").endswith("?"):
            continue   # a question: the pair moves, the subject and metric stay (as in _paragraph_claims)
        subject = arms[0] if arms else subject
        metrics = vocab.metrics_in(sent)
        metric = metrics[-1][1] if metrics else metric
    return subject, pair, metric


def _heading_facts(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """Seeds, counts and the held-out n a Markdown heading states ("## Stats (paired over seeds 100–500)",
    "## Held-out accuracy (1,000 test problems)"): checked like a sentence's; headings state no other claim."""
    if f.path.endswith(".tex"):
        return
    for ln, _scope in getattr(f, "heading_scopes", None) or []:
        line = f.lines[ln - 1] if 0 < ln <= len(f.lines) else ""
        if line.lstrip().startswith("#") and _DIGIT.search(line):
            _fact_claims(line, facts, lambda _pos, ln=ln: f"{f.path}:{ln}", out)


_P_BELOW = re.compile(r"\b([pq])(?:[-_ ]?(?:adj(?:usted)?|values?))?\s*(?:<|≤|<=|\\le)\s*(\d*\.?\d+(?:[eE][-−]?\d+)?)", re.I)


def _legends(f: ParsedFile):
    """The file's legends (:mod:`audit.markers`), or None when no line holds a mark character."""
    from audit.markers import legends

    return legends(f) if any(c in line for line in f.lines for c in "*†‡§") else None


def _marker_claims(f: ParsedFile, vocab: Vocabulary, facts: Facts, out: list[Claim], tally: Tally, notes) -> None:
    """A mark on a results-table value ("| DAPO | 0.578† |", "0.631*") that a legend under the table
    explains ("† significantly better than GRPO (BH-adjusted p < 0.001)", "* p < 0.05", "*: significant
    after BH") claims that the row's arm (else the column's) is, or is not, significantly different
    from the arm the legend names, else the row's second arm ("SFT − Base"), else the baseline, on
    the metric the row or column names: checked
    like the same words in a sentence. What a mark and a legend are is :mod:`audit.markers`'; a mark
    without a legend claims nothing (README failure 15)."""
    from audit.markers import marked_cells

    for mc in marked_cells(f) if notes else ():
        note = notes.of(mc.mark, mc.line)
        arms = [a for _, a in vocab.arms_in(mc.row)] or [a for _, a in vocab.arms_in(mc.column)]
        if note is None or not arms:
            continue
        named = [a for _, a in vocab.arms_in(note) if a != arms[0]]
        other = named[0] if named else next((a for a in arms[1:] if a != arms[0]), vocab.baseline)
        cid = _contrast_id((arms[0], other), facts)   # a "SFT − GRPO" row is that contrast
        if cid is None:
            continue
        metrics = vocab.metrics_in(mc.row) or vocab.metrics_in(mc.column)
        where, said = f"{f.path}:{mc.line}", _mark_claim(note, cid, metrics[0][1] if metrics else None, facts)
        if said is None:
            tally.undecided.append((where, mc.mark))
            continue
        tally.checked += 1
        claim, truth, fact = said
        if not truth:
            out.append(Claim(where, fact, mc.cell, f"'{mc.mark}' on {mc.cell} marks it '{claim}' (the legend "
                             f"'{mc.mark} {note}'), but {cid} {fact}"))


def _sentence_marks(sent: str, s_start: int, pair, f: ParsedFile, para, vocab: Vocabulary, facts: Facts,
                    notes, out: list[Claim], tally: Tally) -> None:
    """A mark on a number in a sentence ("GSPO reaches 0.650*", "DAPO − GRPO = +0.021†") with a legend
    under the paragraph or at the end of the section ("* p < 0.05 (paired t, BH-adjusted)"): checked
    like a marked table value (:func:`_marker_claims`). The marked arm is the one the words since the
    previous number name (two of them: that contrast), else the sentence's; it is compared with the arm
    the legend names, else the other arm of the pair, else the baseline; on the metric named before
    the number in the sentence, else the primary one (as :func:`_significance`)."""
    from audit.markers import sentence_marks

    nums, _, offs = para
    pos = 0
    for sm in sentence_marks(sent, f.path.endswith(".tex")):
        pos = max(sent.find(sm.number, pos), 0)
        line = _line_of(offs, nums, s_start + pos)
        where, note = f"{f.path}:{line}", notes.of(sm.mark, line)
        if note is None:
            continue    # a mark with no legend claims nothing
        arms = _marked_arms(sm.lead, sent, pair, vocab)
        named = [a for _, a in vocab.arms_in(note) if arms and a != arms[0]]
        other = named[0] if named else next((a for a in arms[1:] if a != arms[0]), vocab.baseline) if arms else None
        cid = _contrast_id((arms[0], other), facts) if arms else None
        metrics = [m for p, m in vocab.metrics_in(sent) if p < pos]
        said = _mark_claim(note, cid, metrics[-1] if metrics else None, facts) if cid else None
        if said is None:
            tally.undecided.append((where, sm.number + sm.mark))
            continue
        tally.checked += 1
        claim, truth, fact = said
        if not truth:
            out.append(Claim(where, fact, sm.number + sm.mark, f"'{sm.mark}' on {sm.number} marks it '{claim}' (the "
                             f"legend '{sm.mark} {note}'), but {cid} {fact}"))


def _marked_arms(lead: str, sent: str, pair, vocab: Vocabulary) -> list[str]:
    """The arms a marked number of a sentence is about: the ones the words since the previous number
    name (one, or two: "DAPO − GRPO = +0.021†"; more is undecided), else the sentence's pair when the
    sentence names at most one arm besides the baseline ("GSPO and DAPO: 0.650* and 0.636*" is undecided)."""
    arms = list(dict.fromkeys(a for _, a in vocab.arms_in(lead)))
    if arms:
        return arms if len(arms) <= 2 else []
    named = {a for _, a in vocab.arms_in(sent)} - {vocab.baseline}
    return list(pair or ()) if len(named) <= 1 else []


def _mark_claim(note: str, cid: str, metric: str | None, facts: Facts) -> tuple[str, bool, str] | None:
    """(what the legend claims, whether the analysis agrees, what the analysis says) for one marked
    contrast, or None when the analysis cannot decide it. Significance words ("significantly better",
    "not significant") are checked against the planned test at the plan's alpha, then a p threshold
    ("p < 0.01") as that bound on the planned test's p (adjusted when the legend says so, or for a
    q); the first the analysis contradicts is the claim shown."""
    adjusted = bool(_ADJUSTED.search(note)) and not _UNADJUSTED.search(note)
    said = [c for c in (_mark_significance(note, cid, metric, adjusted, facts), _mark_bound(note, cid, metric, adjusted,
                                                                                           facts)) if c is not None]
    return next((c for c in said if not c[1]), said[-1] if said else None)


def _mark_significance(note: str, cid: str, metric: str | None, adjusted: bool, facts: Facts):
    sig = _SIGNIF.search(note)
    if sig is None:
        return None
    negative = sig.group(1).lower().startswith(("not", "non", "insig", "no "))
    truth, key = _is_significant(cid, facts, adjusted, metric)
    if truth is None:
        return None
    v = facts.values.get(key)
    shown = f"{v:.3g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
    said = "significant" if truth else "not significant"
    return sig.group(1), truth != negative, f"is {said} ({key} = {shown}, alpha {facts.alpha:g})"


def _mark_bound(note: str, cid: str, metric: str | None, adjusted: bool, facts: Facts):
    bound = _P_BELOW.search(note)
    if bound is None:
        return None
    adjusted = adjusted or bound.group(1).lower() == "q"
    key = (f"contrasts.{cid}.{metric}.p" if metric and metric != facts.primary else
           f"contrasts.{cid}.p_adjusted" if adjusted else f"contrasts.{cid}.p")
    p, limit = facts.values.get(key), float(bound.group(2).replace("−", "-"))
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        return None
    return bound.group(0), p < limit, f"has {key} = {p:.3g}"


_VERDICT_LIKE = re.compile(r"\b[A-Z][A-Z_]{3,}\b")


def _table_verdicts(f: ParsedFile, vocab: Vocabulary, facts: Facts, out: list[Claim], tally: Tally) -> None:
    """A verdict word in a table row: the verdict of the contrast its row or column names (an arm:
    against the baseline), else of the arm its headings name ("| Verdict | SURVIVES |" in a
    "Metric | This run" table under "# GSPO, seed 37")."""
    header_line = ""
    starts = [ln for ln, _ in getattr(f, "heading_scopes", None) or []]
    for i, line in enumerate(f.lines, 1):
        if not line.lstrip().startswith("|") or _RULE_ROW.fullmatch(line):
            continue
        if _is_header(f.lines, i):
            header_line = line
            continue
        if not _VERDICT_LIKE.search(line):
            continue   # no word that can be a verdict: nothing to read (a 5 MB table of numbers: README failure 10)
        cells = _pipe_cells(line)
        header = _pipe_cells(header_line) if header_line else []
        row_arms = list(dict.fromkeys(a for _, a in vocab.arms_in(cells[0] if cells else "")))
        for ci, cell in enumerate(cells[1:], 1):
            arms = row_arms or list(dict.fromkeys(a for _, a in vocab.arms_in(header[ci] if ci < len(header) else "")))
            pair = _sentence_pair(arms, None, vocab) if arms else scope_pair(f, i, vocab, starts)
            cid = _contrast_id(pair, facts)
            want = facts.verdicts.get(cid) if cid else None
            for m in re.finditer(r"\b[A-Z][A-Z_]{3,}\b", cell):
                word = m.group(0)
                if word not in facts.verdict_names or "<!--" in cell[m.end():m.end() + 6]:
                    continue
                if not want:
                    tally.undecided.append((f"{f.path}:{i}", word))
                    continue
                tally.checked += 1
                if word != want:
                    out.append(Claim(f"{f.path}:{i}", f"{want} (verdicts.contrasts.{cid})", word,
                                     f"verdict word {word} contradicts the analysis: {cid} is {want}"))


_RULE_ROW = re.compile(r"[\s|:-]+")


def _pipe_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _parsed_table_verdicts(f: ParsedFile, vocab: Vocabulary, facts: Facts, out: list[Claim], tally: Tally) -> None:
    """Verdict words in HTML and LaTeX table rows (pipe tables are read line by line above), from
    the parsed cells of each row that holds a number: the row's arm, else the column's, else the
    headings'. In LaTeX a lower-case verdict name in a cell is a verdict word (small caps)."""
    seen: set = set()
    starts = None
    for m in f.mentions:
        if m.kind != "table" or not m.row_cells or m.line_text.lstrip().startswith("|"):
            continue
        key = (m.line, m.row_cells)
        if key in seen:
            continue
        seen.add(key)
        row_arms = list(dict.fromkeys(a for _, a in vocab.arms_in(m.identity or m.row or "")))
        for ci, cell in enumerate(m.row_cells):
            words = [w for w in re.findall(r"[A-Za-z_]{4,}", cell) if w.upper() in facts.verdict_names
                     and (w.isupper() or f.path.endswith(".tex"))]
            if not words:
                continue
            col = m.header[ci] if ci < len(m.header) else ""
            arms = row_arms or list(dict.fromkeys(a for _, a in vocab.arms_in(col)))
            if not arms and starts is None:
                starts = [ln for ln, _ in getattr(f, "heading_scopes", None) or []]
            cid = _contrast_id(_sentence_pair(arms, None, vocab) if arms else scope_pair(f, m.line, vocab, starts), facts)
            want = facts.verdicts.get(cid) if cid else None
            line = _cell_line(f.lines, m.line, cell, len(m.row_cells))
            for w in words:
                if not want:
                    tally.undecided.append((f"{f.path}:{line}", w.upper()))
                    continue
                tally.checked += 1
                if w.upper() != want:
                    out.append(Claim(f"{f.path}:{line}", f"{want} (verdicts.contrasts.{cid})", w.upper(),
                                     f"verdict word {w.upper()} contradicts the analysis: {cid} is {want}"))


def _cell_line(lines: list[str], near: int, cell: str, width: int) -> int:
    """The line a row's cell is written on: a multi-line HTML ``<tr>`` puts each cell on its own line
    (its verdict word is that line's), so the line of the row holding the cell's text, the row being
    the lines from the ``<tr`` at or above ``near`` (the line of a number of the row) to its ``</tr``
    (at most ``width`` cells' lines each way); ``near`` when not found there."""
    text = cell.strip()
    if not text or "\n" in text or not 0 < near <= len(lines) or "<t" not in lines[near - 1].lower():
        return near   # a pipe or LaTeX row: one line
    lo = near
    while lo > max(1, near - 2 * width) and "<tr" not in lines[lo - 1].lower():
        lo -= 1
    hi = near
    while hi < min(len(lines), near + 2 * width) and "</tr" not in lines[hi - 1].lower() \
            and "<tr" not in lines[hi].lower():
        hi += 1
    return next((ln for ln in range(lo, hi + 1) if text in lines[ln - 1]), near)


def _registered(facts: Facts, seed: int) -> bool:
    """A locked seed, or the seed of a run the records hold (an exploratory run is check 11's to label)."""
    return not facts.seeds or seed in facts.seeds or seed in facts.run_seeds


def _seed_labels(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """Headings and table header cells that name one seed ("seed 37", "| seed 3 |")."""
    fenced = False
    for i, line in enumerate(f.lines, 1):
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or not (_ATX.match(line) or _is_header(f.lines, i) or ("\\" in line and _TEX_HEADING.search(line))):
            continue
        for m in _SEED_ONE.finditer(line):
            seed = int(m.group(1))
            if not _registered(facts, seed):
                out.append(Claim(f"{f.path}:{i}", f"one of the registered seeds {list(facts.seeds)} (lock.seeds)",
                                 m.group(0), f"seed {seed} is not a registered seed (lock.seeds = "
                                 f"{list(facts.seeds)})"))
    for m in f.mentions:   # a bare number under a "Seed" column ("| 3 | 0.431 |")
        if m.kind == "table" and m.label_fact and m.label_fact[0] == "seed" and not _is_header(f.lines, m.line) \
                and not _registered(facts, int(m.label_fact[1])):
            out.append(Claim(f"{f.path}:{m.line}", f"one of the registered seeds {list(facts.seeds)} (lock.seeds)",
                             f"seed {m.text}", f"seed {m.text} is not a registered seed (lock.seeds = "
                             f"{list(facts.seeds)})"))


_FENCE = re.compile(r"\s*(```|~~~)")
_ATX = re.compile(r"\s{0,3}#")
_TEX_HEADING = re.compile(r"\\(?:title|(?:sub)*section)\*?\{")
_DELIMITER_ROW = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*")


def _is_header(lines: list[str], i: int) -> bool:
    return (lines[i - 1].lstrip().startswith("|") and i < len(lines)
            and _DELIMITER_ROW.fullmatch(lines[i]) is not None)


def _n_labels_in_tables(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """"(n=500)", "(of 1,319)" in table rows and headers (a LaTeX caption is a paragraph of
    :func:`audit.prose.tex_paragraphs`: its n, seeds and resamples are read with the prose)."""
    for i, line in enumerate(f.lines, 1):
        if line.lstrip().startswith("|"):
            _n_facts(line, facts, f"{f.path}:{i}", out)


def _parsed_header_facts(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """"seed 3" and "(n=500)" in a header cell of a table that is not read line by line as pipe rows
    (reST list, csv and simple tables, HTML and LaTeX tables): checked as in a Markdown table's
    header (README failure 15: a label that states a checkable fact is checked). The cell's column
    name is read once per header line."""
    done: set[tuple[int, str]] = set()
    for m in f.mentions:
        if m.kind != "heading" or not m.header or m.line_text.lstrip().startswith("|"):
            continue   # a document heading (_heading_facts), or a pipe row (_seed_labels, _n_labels_in_tables)
        key = (m.line, m.column or "")
        if key in done or not key[1]:
            continue
        done.add(key)
        at = f"{f.path}:{m.line}"
        for sm in _SEED_ONE.finditer(key[1]):
            seed = int(sm.group(1))
            if not _registered(facts, seed):
                out.append(Claim(at, f"one of the registered seeds {list(facts.seeds)} (lock.seeds)", sm.group(0),
                                 f"seed {seed} is not a registered seed (lock.seeds = {list(facts.seeds)})"))
        _n_facts(key[1], facts, at, out)


def _resample_facts(text: str, facts: Facts, at, out: list[Claim]) -> None:
    """"2,000 bootstrap resamples" against lock.analysis.resamples."""
    for m in _RESAMPLES.finditer(text) if facts.resamples else ():
        raw = re.sub(r"[, \u2009\u202f]", "", m.group(1))   # "2k bootstrap resamples": thousands
        if (float(raw[:-1]) * 1000 if raw.endswith("k") else float(raw)) != facts.resamples:
            out.append(Claim(at(m.start()), f"{facts.resamples} (lock.analysis.resamples)", m.group(0),
                             f"{m.group(1)} resamples written, the lock says {facts.resamples} (lock.analysis.resamples)"))


def n_facts(text: str) -> list[re.Match]:
    """The statements of the held-out n in ``text`` ("n=500", "(of 1,319)", "162 held-out puzzles")."""
    if "=" not in text and "(" not in text:   # each statement needs "=", "(" or a noun: a table row of numbers
        low = folded(text)                     # holds none (README failure 10: 95,000 rows a 5 MB table)
        if low is not None and not any(w in low for w in _N_NOUNS):
            return []
    out = []
    for m in _n_fact_matches(text):
        near = text[max(0, m.start() - 60):m.end() + 60]
        if m.group(1) and (not _HELDOUT_WORDS.search(near) or re.search(r"\bseeds?\b", text[m.end():m.end() + 24], re.I)):
            continue   # "n=3 seeds", "at n=3 (bounded data)": not the held-out n
        if m.group(4) and not _OUT_OF_ITEMS.search(near):
            continue   # "2.5 groups out of 4": only a count of items is out of the held-out n
        if m.group(3) and _BY_COUNT.search(text, max(0, m.start() - 40), m.start()):
            continue   # "ahead of GRPO ... by 12, 2 and 4 problems": differences in problems, not the n
        if m.group(3) and (_SOLVED_BEFORE.search(text, max(0, m.start() - 30), m.start())
                           or (_EACH_AFTER.match(text, m.end()) and _SOLVED_WORDS.search(text, max(0, m.start() - 80), m.start()))):
            continue   # "GRPO solved 72 problems to its 68", "tied on seed 1 (67 problems each)": problems solved
        out.append(m)
    return out


def _n_fact_matches(text: str):
    """``_N_FACT.finditer(text)``, tried only at "n", "(" and "out" where no noun a count of items needs is in
    ``text`` (then no match opens with digits: :func:`audit.words.matches_at`; README failure 10)."""
    low = folded(text)
    if low is None or any(w in low for w in _N_FACT_NOUNS):
        return _N_FACT.finditer(text)
    return matches_at(_N_FACT, text, low, ("(", "out"), _n_before_equals(text, low))


def _n_before_equals(text: str, low: str) -> set[int]:
    """Where an "n" is followed by spaces (``\\s``, ``str.isspace``) and "=": the only places ``_N_FACT``'s
    "n = 500" can start (found from each "=", not by trying the pattern at every "n" of the text)."""
    out = set()
    e = text.find("=")
    while e >= 0:
        j = e
        while j and text[j - 1].isspace():
            j -= 1
        if j and low[j - 1] == "n":
            out.add(j - 1)
        e = text.find("=", e + 1)
    return out


def _n_facts(text: str, facts: Facts, where, out: list[Claim]) -> None:
    """Each held-out n stated in ``text`` against the lock; ``where``: a location, or a function of
    the statement's offset in ``text`` giving one."""
    if not facts.heldout_n:
        return
    for m in n_facts(text):
        at = where(m.start()) if callable(where) else where
        raw = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        n = float(raw.replace(",", ""))
        if (m.group(2) or m.group(4)) and n in facts.count_max:
            continue   # "Groups correct (of 4)": the count's maximum, not the held-out n
        if n != float(facts.heldout_n):
            out.append(Claim(at, f"{facts.heldout_n:g} (lock.dataset.heldout_n)", m.group(0).strip(),
                             f"n written as {raw}, the lock says {facts.heldout_n:g} (lock.dataset.heldout_n)"
                             + ("; the number differs in its last digits from the locked n"
                                if abs(n - float(facts.heldout_n)) <= 2 else "")))


def scope_pair(f: ParsedFile, line: int, vocab: Vocabulary, starts: list[int] | None = None):
    """The (arm, baseline) pair the headings above ``line`` scope it to, or None.

    A heading scopes what follows until the next heading of the same or a higher level; the
    innermost heading naming an arm decides (its first arm, as :func:`audit.trace._scope_entity`
    reads a heading), so "- **Preregistered verdict:** SURVIVES" under "# Qwen3-8B GSPO LoRA" is
    the verdict of gspo against the baseline. A heading naming only the baseline scopes nothing.

    Args:
        f: the parsed file (its ``heading_scopes``).
        line: a 1-based line of ``f``.
        vocab: the study's names.
        starts: the heading lines of ``f`` (computed once per file by the caller), or None.
    Returns:
        A pair of arms (first minus second), or None.
    """
    heads = getattr(f, "heading_scopes", None) or []
    k = bisect.bisect_right(starts if starts is not None else [ln for ln, _ in heads], line) - 1
    if k < 0:
        return None
    for text in reversed(heads[k][1]):
        arms = list(dict.fromkeys(a for _, a in vocab.arms_in(text)))
        if arms:
            return _sentence_pair(arms[:1], None, vocab)
    return None


def _paragraph_claims(f, para, vocab: Vocabulary, facts: Facts, out: list[Claim], starts, tally: Tally,
                      notes=None, lead: tuple | None = None) -> None:
    """The claims of one paragraph, sentence by sentence; the pair of arms (and the subject and
    metric) a sentence is about carries over to the next one that names none, and the first
    sentence starts from the arm its headings name (``lead``: a list item's, see :func:`_lead_in`)."""
    nums, text, offs = para
    subject, pair, metric = _start_state(f, nums, vocab, starts, lead)
    for s_start, s_end in sentences(text):
        sent = text[s_start:s_end]
        at = lambda pos, s0=s_start: f"{f.path}:{_line_of(offs, nums, s0 + pos)}"   # noqa: E731
        named = vocab.arms_in(sent)
        arms = list(dict.fromkeys(a for _, a in named))
        pair = _versus_subject(sent, arms, subject, vocab) or _sentence_pair(arms, pair, vocab)
        if sent.rstrip(" *_)\"'”’").endswith("?"):
            continue   # a question claims nothing ("Can we say GSPO significantly beats GRPO?" in a quoted e-mail)
        _fact_claims(sent, facts, at, out)
        metrics = vocab.metrics_in(sent)
        said, decided, undecided = arm_comparisons(sent, named, metrics, subject, metric, facts)
        said += number_comparisons(sent, decided)
        ratios, n_ratios, open_ratios = ratio_claims(sent, named, metrics, subject, metric, vocab.baseline, facts)
        said += ratios
        undecided += open_ratios
        tally.checked += n_ratios
        for read in (seed_win_claims, per_seed_claims, points_claims, session_claims):   # "wins on every seed", "2 up, 3 down", "tied on seeds 2 and 8"
            wins, n_wins, open_wins = read(sent, named, metrics, subject, pair, metric, vocab.baseline, facts)
            said, undecided, tally.checked = said + wins, undecided + open_wins, tally.checked + n_wins
        cid = _contrast_id(pair, facts)
        group = _group_significance(sent, named, facts, at, out, tally)
        own = [(pos, _contrast_id(_sentence_pair([a], None, vocab), facts)) for pos, a in named] if len(arms) > 1 else []
        if cid is not None or "verdict" in sent.lower():   # "each registered verdict is X" names no one contrast
            _verdict_words(sent, s_start, cid, metrics, facts, f, para, out, tally)
            _foreign_verdict(sent, s_start, cid, facts, f, para, out, tally)
            _significance(sent, s_start, cid, metrics, facts, f, para, out, tally, skip=group, own=own)
            within, open_ = within_claims(sent, cid, metrics, metric, facts)
            said += within
            undecided += open_
            tally.checked += sum(1 for _ in matches_at(WITHIN, sent, folded(sent), ("within",))) - len(open_)
        else:   # nothing says which contrast: shown as undecided (a word in an arm's own clause is that arm's)
            mixed = len({c for _, c in own if c}) > 1
            if mixed:
                _significance(sent, s_start, None, metrics, facts, f, para, out, tally, skip=group, own=own)
            low = folded(sent)
            undecided += [(m.start(), m.group(0)) for rx, words in (((WITHIN, ("within",)),) if mixed else
                                                                    ((_SIGNIF, _SIGNIF_WORDS), (WITHIN, ("within",))))
                          for m in matches_at(rx, sent, low, words)]
            undecided += [(m.start(), m.group(0)) for m in re.finditer(r"\b[A-Z][A-Z_]{3,}\b", sent)
                          if m.group(0) in facts.verdict_names]
        if notes:   # "0.650*" with "* p < 0.05" under the paragraph (audit.markers)
            _sentence_marks(sent, s_start, pair, f, para, vocab, facts, notes, out, tally)
        tally.checked += len(decided)
        tally.undecided += [(at(pos), words) for pos, words in undecided]
        out += [Claim(at(c.at), c.expected, c.words, c.message) for c in said]
        subject = arms[0] if arms else subject
        metric = metrics[-1][1] if metrics else metric


_OPEN_TASK = re.compile(r"^\W{0,4}\[ \]\s")
# Seeds a plan names, not the study's: "and queue seeds 24–26", "next we add seeds 9-12", "Re-run with
# seeds 8–13", "Next up: 8 seeds for GSPO".
_PLAN_BEFORE = re.compile(r"\b(?:queue|add|launch|schedule|next|re-?run\s+with|repeat\s+with)[\s:]+(?:[\w-]+[\s:]+){0,2}$",
                          re.I)


def _fact_claims(sent: str, facts: Facts, at, out: list[Claim]) -> None:
    """Seed lists, single seeds, run/arm/seed counts and the held-out n written in one sentence."""
    if _OPEN_TASK.match(sent):
        return     # "- [ ] rerun with 10 seeds" is a plan, not a fact
    _word_and_step_facts(sent, facts, at, out)   # "four seeds per method": a count in words
    if not _DIGIT.search(sent):
        return     # every other fact is written with digits
    low = folded(sent)   # a pattern below runs only where the word its every match needs is (README failure 10)
    seeds = "seed" in sent.lower()
    for m in matches_from(_SEED_LIST, sent, low, "seed") if seeds else ():
        _seed_list(m, facts, at(m.start(1)), out)
    for m in matches_from(_SEED_RANGE, sent, low, "seeds") if seeds else ():
        bad = [int(x) for x in m.group(1, 2) if not _registered(facts, int(x))]
        if bad and not _PLAN_BEFORE.search(sent[max(0, m.start() - 30):m.start()]):   # "seeds 1 to 6", "seeds 100–500": both ends are registered seeds
            out.append(Claim(at(m.start(1)), f"seeds from lock.seeds = {list(facts.seeds)}", m.group(0),
                             f"seed range names {', '.join(map(str, bad))}, not registered (lock.seeds = "
                             f"{list(facts.seeds)})"))
    for m in matches_from(_SEED_ONE, sent, low, "seed") if seeds else ():
        seed = int(m.group(1))
        if not _registered(facts, seed):
            out.append(Claim(at(m.start()), f"one of the registered seeds {list(facts.seeds)}", m.group(0),
                             f"seed {seed} is not a registered seed (lock.seeds = {list(facts.seeds)})"))
    for m in _COUNTS.finditer(sent) if low is None or any(w in low for w in _COUNTED) else ():
        if not _PLAN_BEFORE.search(sent[max(0, m.start() - 30):m.start()]):   # "Next up: 8 seeds" is a plan
            _count_fact(m, facts, at(m.start()), out)
    if low is None or "samples" in low or "replicates" in low:
        _resample_facts(sent, facts, at, out)
    _n_facts(sent, facts, at, out)
    for s in wrong_settings(sent, facts.lock, facts.steps_recorded) if facts.lock else ():
        out.append(Claim(at(s.start), f"{s.locked:g} (lock.{s.key})", s.written,
                         f"{s.written} written, the lock says {s.locked:g} (lock.{s.key})"))


_COUNTS = re.compile(r"(?<![\d.,×x*])(\d+)\s+(?:(?:registered|confirmatory|trained|locked)\s+)?"
                     r"(adapters|runs|checkpoints|arms|seeds)\b", re.I)
_COUNTED = ("adapters", "runs", "checkpoints", "arms", "seeds")   # what _COUNTS counts


_NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                             "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
# "so fifteen runs in all": runs counted in words (a count of seeds in words is _WORD_COUNTS' and _WITH_SEEDS')
_RUN_WORDS = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\s+(?:(?:registered|confirmatory|trained|locked)\s+)?"
                        r"(adapters|runs|checkpoints)\b", re.I)
# The words that make a count of runs the study's total, not some of them
_TOTAL_AFTER = re.compile(r"\s+(?:in\s+all|in\s+total|altogether|overall|total|all\s+told)\b", re.I)
_TOTAL_BEFORE = re.compile(r"\b(?:(?:each|all|every\s+one)\s+of\s+the|a\s+total\s+of|in\s+total|all)\s+$", re.I)
# "four seeds per method", "three runs each": a count in words, of what every arm has
_WORD_COUNTS = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\s+(seeds|runs)\s+(?:per|each|for\s+(?:each|every))\b", re.I)
# "With four seeds the design could only detect ...", "trained with six seeds": the study's number of seeds
_WITH_SEEDS = re.compile(r"\bwith\s+(?:only\s+|just\s+)?(" + "|".join(_NUMBER_WORDS) + r")\s+(seeds)\b(?!\s+(?:more|instead)\b)",
                         re.I)
# "12 steps and 192 rollouts per run", "trained for 12 steps": the steps (rollouts) every run trained
_STEPS = re.compile(r"(?<![\d.,])(\d+)\s+(?:training\s+|optimi[sz]er\s+|gradient\s+)?(steps|rollouts)\b"
                    r"(?=[^.;]{0,40}?\b(?:(?:per|each|every)\s+(?:run|adapter|seed|model)\b|each\b(?!\s+(?:arm|method|objective)\b)))|"
                    r"\btrained\s+for\s+(\d+)\s+(steps)\b",
                    re.I)


_COUNT_WORDS = tuple(_NUMBER_WORDS)   # what each _WORD_COUNTS match opens with


def steps_may_match(low: str | None) -> bool:
    """False only where ``_STEPS`` surely finds nothing in the text ``low`` folds (``folded``): each match needs
    "per", "each" or "every" after the count, or "trained" before it (a pre-test: the pattern costs ~1 us a
    character, README failure 10)."""
    return low is None or any(w in low for w in ("per", "each", "every", "trained"))


# "two evaluation sessions", "3 eval sessions": how many evaluation sessions the records hold
_SESSIONS = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\s+(?:separate\s+|distinct\s+)?eval(?:uation)?\s+sessions\b", re.I)


def _word_and_step_facts(sent: str, facts: Facts, at, out: list[Claim]) -> None:
    """Seeds per arm written in words ("four seeds per method") against the locked seeds, the steps and
    rollouts of every run ("12 steps and 192 rollouts per run") against the runs', when all arms had the same,
    and "two evaluation sessions" against the analysis' sessions."""
    low, fl = sent.lower(), folded(sent)
    for m in _SESSIONS.finditer(sent) if facts.sessions and "sessions" in low else ():
        g = m.group(1).lower()
        n = int(g) if g.isdigit() else _NUMBER_WORDS[g]
        if n != len(facts.sessions):
            out.append(Claim(at(m.start()), f"{len(facts.sessions)} (analysis sessions {list(facts.sessions)})", m.group(0),
                             f"{m.group(0)} written, the analysis holds {len(facts.sessions)} evaluation sessions "
                             f"({', '.join(map(str, facts.sessions))})"))
    for m in _RUN_WORDS.finditer(sent) if "runs" in low or "adapters" in low or "checkpoints" in low else ():
        if not _PLAN_BEFORE.search(sent[max(0, m.start() - 30):m.start()]):
            _count_fact(m, facts, at(m.start()), out)
    if "seeds" in low or "runs" in low:
        for m in (*matches_at(_WORD_COUNTS, sent, fl, _COUNT_WORDS),
                  *(matches_at(_WITH_SEEDS, sent, fl, ("with",)) if "with" in low else ())):
            n, want = _NUMBER_WORDS[m.group(1).lower()], len(facts.seeds)
            if _PLAN_BEFORE.search(sent, max(0, m.start() - 30), m.start()):
                continue   # "next round, with ten seeds": a plan
            if m.group(2).lower() == "seeds" and facts.seeds and n != want:
                out.append(Claim(at(m.start()), f"{want} (lock.seeds)", m.group(0),
                                 f"{m.group(1)} seeds written, the records hold {want} (lock.seeds count)"))
    for m in _STEPS.finditer(sent) if ("steps" in low or "rollouts" in low) and steps_may_match(fl) else ():
        what = (m.group(2) or m.group(4)).lower()
        seen = {v for k, v in facts.values.items() if k.startswith("arms.") and k.endswith(f".{what}")
                and k.count(".") == 2 and isinstance(v, (int, float))}
        n = int(m.group(1) or m.group(3))
        if len(seen) == 1 and n != next(iter(seen)):
            want = next(iter(seen))
            out.append(Claim(at(m.start()), f"{want:g} (arms.<arm>.{what})", m.group(0),
                             f"{n} {what} written, every run trained {want:g} {what} (arms.<arm>.{what})"))


def _count_fact(m: re.Match, facts: Facts, where: str, out: list[Claim]) -> None:
    """"40 adapters", "5 arms", "8 seeds", "fifteen runs": the number of runs, arms and seeds the records hold
    (fewer runs than the study's are some of them, unless the words make it the total: "15 runs in all",
    "Each of the 18 runs")."""
    g = m.group(1)
    n, what = (int(g) if g.isdigit() else _NUMBER_WORDS[g.lower()]), m.group(2).lower()
    total = bool(_TOTAL_AFTER.match(m.string, m.end()) or _TOTAL_BEFORE.search(m.string, max(0, m.start() - 24), m.start()))
    key = {"adapters": "study.n_runs", "runs": "study.n_runs", "checkpoints": "study.n_runs",
           "arms": "lock.arms", "seeds": "lock.seeds"}[what]
    if key == "study.n_runs":
        want = facts.values.get("study.n_runs")
    elif key == "lock.seeds":
        want = len(facts.seeds) if facts.seeds else None
    else:
        want = facts.n_arms
    if isinstance(want, (int, float)) and n != want and not (key == "study.n_runs" and n < want
                                                            and what != "adapters" and not total):
        out.append(Claim(where, f"{want:g} ({key})", m.group(0), f"{n} {what} written, the records hold "
                         f"{want:g} ({key}{'' if key == 'study.n_runs' else ' count'})"))


def _sentence_pair(arms: list[str], prev, vocab: Vocabulary):
    if len(arms) >= 2:
        return (arms[0], arms[1])
    if len(arms) == 1 and arms[0] != vocab.baseline:
        return (arms[0], vocab.baseline)
    return prev


def _contrast_id(pair, facts: Facts) -> str | None:
    if not pair:
        return None
    for c in (f"{pair[0]}-{pair[1]}", f"{pair[1]}-{pair[0]}"):
        if c in facts.verdicts or f"contrasts.{c}.diff_mean" in facts.values:
            return c
    return None


def _seed_list(m: re.Match, facts: Facts, where: str, out: list[Claim]) -> None:
    seeds = [int(x) for x in re.findall(r"\d+", m.group(1))]
    bad = [s for s in seeds if not _registered(facts, s)]
    if bad:
        out.append(Claim(where, f"seeds from lock.seeds = {list(facts.seeds)}", m.group(1).strip(),
                         f"seed list names {', '.join(map(str, bad))}, not registered (lock.seeds = "
                         f"{list(facts.seeds)})"))


def _verdict_words(sent, s_start, cid, metrics, facts: Facts, f, para, out, tally: Tally) -> None:
    """Each verdict word of a sentence against the verdict of the contrast it is about: of the
    metric named before the word, a secondary metric's verdict (verdicts.secondary.<contrast>.<metric>),
    else the primary contrast's. A word in LaTeX small caps (``\\textsc{survives}``) is a verdict
    word too. "each registered verdict is X" is every confirmatory contrast's (``cid`` may be None);
    "the X verdict needs ..." names a criterion, no claim."""
    nums, text, offs = para
    for m in _verdict_names_rx(facts.verdict_names).finditer(sent):
        line = _line_of(offs, nums, s_start + m.start())
        word = _verdict_word(m.group(0), f.lines[line - 1], facts)
        if word is None or re.search(rf"{word}\W{{0,4}}<!--\s*verdict\s*:", f.lines[line - 1]):
            continue
        if _in_html_cell(f.lines[line - 1], word) and f.path.endswith(".md"):
            continue   # a raw HTML table's cell: read with its row's arm (_parsed_table_verdicts), not the sentence's
        if _CRITERION_AFTER.match(sent, m.end()):
            continue   # "the registered DISAPPEARS verdict also needs ...": the verdict's criterion, no claim of it
        each = _EACH_VERDICT.search(sent[max(0, m.start() - 60):m.start()])
        if each:   # "both verdicts are X" is every one's only where the plan has two ("both" of three is some)
            _each_verdict(word, f"{f.path}:{line}", facts, out, tally, 2 if each.group(0)[:4].lower() == "both" else None)
            continue
        if cid is None:
            continue
        negated = bool(_NOT_THIS_VERDICT.search(sent[max(0, m.start() - 24):m.start()]))
        before = [x for pos, x in metrics if pos < m.start()]   # "SURVIVES: ... lowers the ZVF" is the primary's
        metric = before[-1] if before else facts.primary
        key = f"{cid}.{metric}" if metric != facts.primary else cid
        want = facts.secondary.get(key) if metric != facts.primary else facts.verdicts.get(cid)
        if not want:
            tally.undecided.append((f"{f.path}:{line}", word))
            continue
        tally.checked += 1
        if negated and word == want:   # "INCONCLUSIVE rather than DISAPPEARS" names the verdict it is not
            out.append(Claim(f"{f.path}:{line}", f"{want} (verdicts.contrasts.{key})", f"not {word}",
                             f"verdict word {word} denied, but the analysis gives {key} {want}"))
        elif word != want and not negated:
            out.append(Claim(f"{f.path}:{line}", f"{want} (verdicts.{'contrasts' if key == cid else 'secondary'}.{key})",
                             word, f"verdict word {word} contradicts the analysis: {key} is {want}"))


# "... Holm p = 0.145 → SURVIVES", "verdict: RETAINS": the place a verdict word is written
_SLOT_MARKS = ("→", "⟶", "⇒", "->", "=>", "erdict")
_VERDICT_SLOT = re.compile(r"(?:→|⟶|⇒|->|=>|\b[Vv]erdict\W{0,3}(?:is\s+|was\s+)?)\s*[*_`]{0,2}([A-Z][A-Z_]{3,})\b")


@functools.lru_cache(maxsize=1)
def template_verdicts() -> frozenset:
    """The verdict names the rules of the toolkit's plan templates (``prereg/templates/*.json``) give.

    Why: a study's own rules may name other verdicts (IMPROVES / REDUCES / INCONCLUSIVE); a card that
    writes a template's SURVIVES for one of its contrasts claims a verdict its rules cannot give."""
    names = set()
    for res in resources.files("prereg").joinpath("templates").iterdir():
        if res.name.endswith(".json"):
            rules = ((json.loads(res.read_text()).get("analysis") or {}).get("verdicts")) or []
            names |= {r["verdict"] for r in rules if isinstance(r, dict) and isinstance(r.get("verdict"), str)}
    return frozenset(names)


def _foreign_verdict(sent, s_start, cid, facts: Facts, f, para, out, tally: Tally) -> None:
    """A verdict word in a verdict's place ("→ SURVIVES", "verdict: RETAINS") that the study's rules cannot
    give but a template's can: an error against the contrast's verdict (the words of the study's own
    rules are :func:`_verdict_words`')."""
    if not any(c in sent for c in _SLOT_MARKS):
        return   # no arrow and no "verdict": no slot (a plain test of a few characters, not a scan per sentence)
    nums, text, offs = para
    for m in _VERDICT_SLOT.finditer(sent):
        word = m.group(1)
        if word in facts.verdict_names or word not in template_verdicts():
            continue
        want = facts.verdicts.get(cid)
        if not want:
            continue
        tally.checked += 1
        out.append(Claim(f"{f.path}:{_line_of(offs, nums, s_start + m.start(1))}", f"{want} (verdicts.contrasts.{cid})",
                         word, f"verdict word {word} is not a verdict of this study's rules "
                               f"({', '.join(sorted(facts.verdict_names))}): {cid} is {want}"))


# "the registered DISAPPEARS verdict also needs the design to detect ...": a verdict named by its criterion
_CRITERION_AFTER = re.compile(r"\W{0,2}\s+verdict\s+(?:also\s+|further\s+|would\s+|itself\s+)?(?:needs?|requires?|"
                              r"demands?|asks?\s+for|calls?\s+for|is\s+defined|means)\b", re.I)
# "so each registered verdict is INCONCLUSIVE", "all three verdicts are": one word for every registered contrast
_EACH_VERDICT = re.compile(r"\b(?:each|every|all|both)\s+(?:of\s+the\s+)?(?:(?:two|three|four|five|six|\d+)\s+)?"
                           r"(?:registered\s+|confirmatory\s+|preregistered\s+|planned\s+)?verdicts?\s+"
                           r"(?:is|are|was|were|reads?|stays?|remains?)\s+(?:still\s+)?\W{0,2}$", re.I)


def _each_verdict(word: str, where: str, facts: Facts, out: list, tally: Tally, count: int | None = None) -> None:
    """"each registered verdict is INCONCLUSIVE": ``word`` against the verdict of every confirmatory contrast
    (every contrast where none is marked exploratory); a finding names the first that differs. ``count``:
    how many the words say there are ("both": 2), else undecided."""
    ids = [c for c in facts.verdicts if c not in facts.exploratory] or list(facts.verdicts)
    wants = [(c, facts.verdicts[c]) for c in ids if facts.verdicts.get(c)]
    if not wants or (count is not None and len(wants) != count):
        tally.undecided.append((where, word))
        return
    tally.checked += 1
    bad = [(c, v) for c, v in wants if v != word]
    if bad:
        c, v = bad[0]
        out.append(Claim(where, f"{v} (verdicts.contrasts.{c})", word,
                         f"verdict word {word} contradicts the analysis: {c} is {v}"))


_BREAK = re.compile(r"[,;]\s")   # a clause break before an arm: its own significance words follow
_NOT_THIS_VERDICT = re.compile(r"\b(?:rather\s+than|instead\s+of|not)\s+(?:an?\s+|the\s+)?\W{0,2}$", re.I)


@functools.lru_cache(maxsize=16)
def _verdict_names_rx(names: frozenset) -> re.Pattern:
    """The study's verdict names as words, in any case (one pattern per study)."""
    alts = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True)) or "(?!)"
    return re.compile(rf"\b(?:{alts})\b", re.I)


def _in_html_cell(line: str, word: str) -> bool:
    """Whether ``word`` is written inside a raw HTML table cell on ``line`` (a ``<td>``/``<th>`` opened
    before it and not closed between): a cell spread over its own line in a multi-line ``<tr>`` is
    that row's, whatever arm the lines above name (README failure 15)."""
    at = line.find(word)
    if at < 0 or "<t" not in line:
        return False
    before = line[:at].lower()
    opened = max(before.rfind("<td"), before.rfind("<th"))
    return opened >= 0 and max(before.rfind("</td"), before.rfind("</th")) < opened


def _verdict_word(word: str, line: str, facts: Facts) -> str | None:
    """``word`` as a verdict name: written in capitals, or in LaTeX small caps on its line."""
    if word.isupper():
        return word if word in facts.verdict_names else None
    up = word.upper()
    return up if up in facts.verdict_names and f"\\textsc{{{word}}}" in line else None


def _is_significant(cid: str, facts: Facts, adjusted: bool, metric: str | None = None) -> tuple[bool | None, str]:
    """(significant?, the value id that says so) for one contrast, on the primary metric or a
    secondary one (a secondary metric is outside the multiplicity family: its p is unadjusted)."""
    if metric and metric != facts.primary:
        key = f"contrasts.{cid}.{metric}.p"
        p = facts.values.get(key)
        return (p < facts.alpha, key) if isinstance(p, (int, float)) and not isinstance(p, bool) else (None, key)
    rej = facts.values.get(f"contrasts.{cid}.reject")
    key = f"contrasts.{cid}.p_adjusted" if adjusted else f"contrasts.{cid}.p"
    p = facts.values.get(key)
    if adjusted and isinstance(rej, bool):
        return rej, f"contrasts.{cid}.reject"
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return p < facts.alpha, key
    return (rej, f"contrasts.{cid}.reject") if isinstance(rej, bool) else (None, key)


# "Both GRPO comparisons are significant after Holm", "neither comparison is significant": one claim
# about every contrast of the named arm(s)
_GROUP = re.compile(r"\b(both|all|neither|none)\b(?:\s+of)?(?:\s+the)?(?:\s+[\w.−-]+){0,6}?\s+"
                    r"(?:comparisons?|contrasts?|hypothes[ie]s|gains|improvements|differences|effects)\b([^,;]*)", re.I)


# "but Dr. GRPO's", "except for the AERO one", "other than DAPO's" right after the group's noun: the exception
_EXCEPT = re.compile(r"\s(?:but|except(?:\s+for)?|other\s+than|apart\s+from|save\s+for)\s+(?:the\s+|that\s+of\s+)?"
                     r"(?P<names>[^,;()]{1,40}?)(?:'s|’s|\s+one)?\s+(?:are|is|were|was|remain|stay)\b", re.I)


def _group_significance(sent: str, named, facts: Facts, at, out: list[Claim], tally: Tally) -> tuple | None:
    """Check "both/all/neither/none of the ... comparisons (are/is) (not) significant" against every
    contrast naming one of the arms the claim names (``named``: (position, arm) in ``sent``; every
    contrast when it names none; adjusted when its clause says so). Returns the claim's span in
    ``sent`` (its significance words are this claim's, the sentence's others are checked one by one:
    "A and B are significantly better than C, but none of the gains is significant after Holm"), or
    None when the sentence has no group claim."""
    g = search_at(_GROUP, sent, folded(sent), ("both", "all", "neither", "none"))
    sig = _SIGNIF.search(g.group(2)) if g else None
    if sig is None:
        return None
    arms = {a for pos, a in named if g.start() <= pos < g.end()}   # the arms the claim itself names
    but = _EXCEPT.search(g.group(2))
    excepted = set()
    if but is not None:   # "All four contrasts but Dr. GRPO's are significant": Dr. GRPO's is not, the others are
        excepted = {a for pos, a in named if g.start(2) + but.start("names") <= pos < g.start(2) + but.end("names")}
        arms = {a for pos, a in named if g.start() <= pos < g.start(2) + but.start()} - excepted
    cids = [c for c in facts.verdicts if not arms or any(a in c.split("-") for a in arms)]
    clause = g.group(0)
    adjusted = (bool(_ADJUSTED.search(clause)) and not _UNADJUSTED.search(clause) if _ADJUSTED.search(clause)
                else adjusted_at(sent, g.start()))
    truths = [(c, *_is_significant(c, facts, adjusted)) for c in cids]
    if not truths or any(t is None for _, t, _ in truths):
        tally.undecided.append((at(g.start()), clause))
        return g.span()
    tally.checked += 1
    want = not (g.group(1).lower() in ("neither", "none") or sig.group(1).lower().startswith(("not", "non", "insig", "no ")))
    wrong = [(c, t, k) for c, t, k in truths if t != (want != bool(excepted & set(c.split("-"))))]
    if wrong:
        c, t, k = wrong[0]
        said = "significant" if t else "not significant"
        out.append(Claim(at(g.start()), f"{said} ({k} = {facts.values.get(k)})", clause,
                         f"'{clause.strip()}' contradicts the analysis: {c} is {said} ({k} = {facts.values.get(k)})"))
    return g.span()


def _significance(sent, s_start, cid, metrics, facts: Facts, f, para, out, tally: Tally, skip=None,
                  own=()) -> None:
    """"significant" / "not significant" / "no difference" / "significantly higher" against the
    planned test of the contrast (adjusted when the sentence says so, unless it says "unadjusted"
    or "before adjustment"), on the metric named before the words (else the primary); words inside
    ``skip`` (the span of a group claim, checked as one by :func:`_group_significance`) are not.
    ``own``: (offset, contrast id) of each arm named in the sentence: a word after a clause break is
    about the contrast of the arm named last before it ("AERO is significantly worse (survives BH), Dr. GRPO
    is significantly different from GRPO": the second word is Dr. GRPO's)."""
    nums, text, offs = para
    for m in matches_at(_SIGNIF, sent, folded(sent), _SIGNIF_WORDS):
        if skip and skip[0] <= m.start() < skip[1]:
            continue
        mine = [(pos, c) for pos, c in own if pos < m.start() and c]
        if mine and mine[-1][1] != cid and _BREAK.search(sent, 0, mine[-1][0]):
            cid = mine[-1][1]
        where = f"{f.path}:{_line_of(offs, nums, s_start + m.start())}"
        negative = m.group(1).lower().startswith(("not", "non", "insig", "no "))
        adjusted = adjusted_at(sent, m.start(), m.end())
        before = [x for pos, x in metrics if pos < m.start()]
        truth, key = _is_significant(cid, facts, adjusted, before[-1] if before else None)
        if truth is None:
            tally.undecided.append((where, m.group(1)))
            continue
        tally.checked += 1
        if truth != negative:
            continue
        v = facts.values.get(key)
        shown = f"{v:.3g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
        said = "significant" if truth else "not significant"
        out.append(Claim(where, f"{said} ({key} = {shown}, alpha {facts.alpha:g})", m.group(1),
                         f"'{m.group(1)}' contradicts the analysis: {cid} is {said} ({key} = {shown})"))
